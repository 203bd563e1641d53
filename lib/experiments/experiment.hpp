// What an experiment kind is: its declared parameters and how it runs.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "report/table.hpp"
#include "spec/param.hpp"

namespace attnlab::experiments {

/// What a run may use besides its spec.
struct RunContext {
  int jobs = 1;                                       // independent trainings run at once
  std::function<void(const std::string&)> progress;   // a line for stderr; may be empty
};

/// What a run produces: the table as the course prints it, the same
/// figures as JSON for scripts, and (for kinds whose output is a table of
/// measured figures) that table's layout and figures, which `attnlab sweep`
/// aggregates over seeds. A kind that fills no table is aggregated over the
/// numeric scalars of its `data`.
struct Report {
  std::string text;
  nlohmann::json data = nlohmann::json::object();
  report::Table table;
};

/// One experiment kind. `params` is the single declaration behind `list`,
/// `show`, `validate` and every spec error; `check` adds rules that tie
/// parameters together (it throws spec::SpecError); `run` does the work.
struct Experiment {
  std::string name;
  std::string summary;        // one line for `attnlab list`
  int course_order = 0;       // the course script number, for ordering a chapter run
  std::vector<spec::Param> params;
  std::function<void(const nlohmann::json& spec, const std::string& file)> check;
  std::function<Report(const nlohmann::json& spec, const RunContext& ctx)> run;
};

/// The common "seed" parameter (torch.manual_seed's argument).
spec::Param seed_param(long long default_seed = 0);

}  // namespace attnlab::experiments
