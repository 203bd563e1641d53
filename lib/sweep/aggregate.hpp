// Aggregation: one table per combination of the swept non-seed keys, in the
// kind's own layout, each figure as mean ± sample standard deviation over
// the runs that finished, with n. Everything is computed from the runs'
// result.json files in plan order, so the figures do not depend on how many
// runs ran at once, in which order they finished, or how often the sweep
// was resumed.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "report/table.hpp"
#include "sweep/plan.hpp"
#include "sweep/run_dir.hpp"

namespace attnlab::sweep {

/// mean ± std over n values (std: sample, n − 1; NaN when n < 2).
struct Summary {
  double mean = 0, std = 0;
  std::size_t n = 0;
};

/// Sums in the order given (plan order), two passes for the deviation.
Summary summarise(const std::vector<double>& values);

struct AggregatedRow {
  std::string label;
  std::vector<Summary> cells;  // one per column of the group's layout
  std::size_t n = 0;           // runs that have this row
};

/// One table: the runs sharing one combination of the non-seed swept keys.
struct Group {
  std::vector<std::pair<std::string, nlohmann::json>> params;  // that combination ("" when none is swept)
  std::vector<std::size_t> runs;                               // positions in the plan
  std::size_t ok = 0, failed = 0, pending = 0;
  report::Table layout;  // label header and columns (labels/values unused)
  std::vector<AggregatedRow> rows;
};

/// The table a result holds: the kind's own (result["table"]), or for kinds
/// that fill none, one unlabelled row of the numeric scalars of
/// result["data"] (format %.6g; "seconds" and "*_seconds" count as timings).
report::Table table_of(const nlohmann::json& result);

/// The groups of a sweep, in plan order. Timing columns (report::Column::
/// timing: wall-clock times, different on every run) are left out unless
/// `with_times`, so that the output is the same bytes on every -j and resume.
std::vector<Group> aggregate(const Plan& plan, const std::vector<RunState>& states, bool with_times);

}  // namespace attnlab::sweep
