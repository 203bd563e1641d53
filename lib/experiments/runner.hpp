// Running several loaded specs and rendering what they produced.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "experiments/registry.hpp"

namespace attnlab::experiments {

/// One finished run.
struct Result {
  LoadedSpec loaded;
  Report report;
};

/// Runs each spec in course order (stable for equal order), serially; each
/// kind parallelises its own independent rows over ctx.jobs. A failure is
/// rethrown as std::runtime_error naming the spec file and kind.
std::vector<Result> run_all(std::vector<LoadedSpec> specs, const RunContext& ctx);

/// The text of a run: a single table as the course prints it; several
/// tables (or any number, with `headings`, as --check compares them) each
/// preceded by a line "== KIND: FILE ==" and separated by a blank line.
std::string render_text(const std::vector<Result>& results, bool headings = false);

/// The same results as one JSON document:
/// {"attnlab": VERSION, "results": [{"file", "experiment", "spec", "data", "text", "table"}]},
/// "table" (report::to_json) only for kinds that fill one.
nlohmann::json render_json(const std::vector<Result>& results);

}  // namespace attnlab::experiments
