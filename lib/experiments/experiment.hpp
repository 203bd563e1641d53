// What an experiment kind is: its declared parameters, what a run of it
// needs, and how it runs.
#pragma once

#include <nlohmann/json.hpp>

#include <concepts>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "report/table.hpp"
#include "spec/param.hpp"
#include "training/fit.hpp"

namespace attnlab::experiments {

/// What a run may use besides its spec, and where it reports.
struct RunContext {
  int jobs = 1;                                        // independent trainings run at once
  std::function<void(const std::string&)> progress;    // a progress line for stderr; may be empty
  std::function<void(const std::string&)> warn;        // a warning or failure for stderr (never silenced); may be empty
  /// The step observer of one training row, named "KIND: LABEL"; called on
  /// the row's thread (training::FitConfig::on_step). May be empty.
  std::function<std::function<void(const training::FitProgress&)>(const std::string& row)> row_progress;
  /// Evaluate each training row after every epoch, for the JSON's
  /// "epoch_val_accuracies" and the learning-curve figures; false when only
  /// the text table is wanted, which shows the last epoch's accuracy alone
  /// (training::FitConfig::eval_every_epoch). No printed figure changes.
  bool epoch_curves = true;
};

/// A training row that stopped because its loss was not finite. `row` is
/// the row's label as the table prints it in its first column.
struct RowDivergence {
  std::string row;
  training::Divergence at;
};

/// A training row whose last epoch's mean loss is above its first step's.
struct RowLossRise {
  std::string row;
  double first_loss = 0, last_epoch_loss = 0;
};

/// What a run produces: the table as the course prints it, the same
/// figures as JSON for scripts, (for kinds whose output is a table of
/// measured figures) that table's layout and figures, which `attnlab sweep`
/// aggregates over seeds, and what went wrong in its training rows. A kind
/// that fills no table is aggregated over the numeric scalars of its `data`.
struct Report {
  std::string text;
  nlohmann::json data = nlohmann::json::object();
  report::Table table;                  // a diverged row's figures are NaN
  std::vector<RowDivergence> diverged;  // non-empty: the run's status is "diverged"
  std::vector<RowLossRise> loss_rose;
};

/// What a run needs at its peak, from its resolved spec, before any work.
struct MemoryEstimate {
  double bytes = 0;       // heap the run holds at its peak: data, parameters, activations, outputs
  int threads = 1;        // threads computing at once (each adds a stack and a BLAS buffer)
  std::string parameter;  // JSON pointer of the parameter that drives it: "/n_keys", "/widths/2"
  std::string reduce;     // what to make smaller, for the refusal: "widths or n_keys"
};

/// What one number of a Report's JSON costs: held (sizeof(nlohmann::json)),
/// then printed by --format json: copied into the document, then at most 40
/// characters of indented text, up to three times that while the string
/// doubles (old and new buffer at once). Measured on sinusoidal's 1024 x
/// 1024 table: 113 bytes a number in all. Kinds whose JSON holds a table of
/// numbers count them; kReportBytes covers the small ones.
constexpr double kJsonNumberBytes = 16;
constexpr double kJsonPrintedNumberBytes = 16 + 3 * 40;

/// A kind's estimate, `(spec, jobs) -> MemoryEstimate`, plus kReportBytes
/// for the report of a small table (its text, JSON and names). It has no
/// default and refuses an empty function, so every kind must write one: a
/// kind declared without `.memory` does not compile.
class MemoryEstimator {
 public:
  static constexpr double kReportBytes = 64 * 1024;
  using Fn = std::function<MemoryEstimate(const nlohmann::json& spec, int jobs)>;
  template <class F>
    requires std::constructible_from<Fn, F>
  MemoryEstimator(F f) : f_(std::move(f)) {  // NOLINT: converting, for `.memory = estimate`
    if (!f_) throw std::logic_error("an experiment kind needs a memory estimate");
  }
  MemoryEstimate operator()(const nlohmann::json& spec, int jobs) const {
    MemoryEstimate e = f_(spec, jobs);
    e.bytes += kReportBytes;
    return e;
  }

 private:
  Fn f_;
};

/// One experiment kind. `params` is the single declaration behind `list`,
/// `show`, `validate` and every spec error; `check` adds rules that tie
/// parameters together (it throws spec::SpecError); `run` does the work;
/// `memory` says what `run` will need, so that a run too big for the
/// machine is refused before it starts (experiments/memory_check.hpp).
struct Experiment {
  std::string name;
  std::string summary;        // one line for `attnlab list`
  int course_order = 0;       // the course script number, for ordering a chapter run
  std::vector<spec::Param> params;
  std::function<void(const nlohmann::json& spec, const std::string& file)> check;
  std::function<Report(const nlohmann::json& spec, const RunContext& ctx)> run;
  MemoryEstimator memory;
};

}  // namespace attnlab::experiments
