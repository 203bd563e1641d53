// The aggregated output of a sweep, in the formats `--format` names:
//   text      one table per group, in the kind's layout, "mean ± std" and n
//   markdown  the same tables as GitHub-flavoured markdown
//   csv       long and flat (MLflow's columns): one line per run and table
//             row: run, status, params.<key> for every overridden key,
//             row (the label as the table prints it), metrics.<column>
//   jsonl     one object per run: run, index, status, params, error, rows
//   json      the aggregated tables and the failed runs, one document
// Everything is a pure function of the plan and the runs' result.json
// files, so a resumed sweep prints what an uninterrupted one prints.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sweep/aggregate.hpp"

namespace attnlab::sweep {

/// The formats, as `--format` spells them.
const std::vector<std::string>& format_names();

/// Renders `format` (one of format_names()).
std::string render(const std::string& format, const Plan& plan, const std::vector<RunState>& states,
                   bool with_times);

/// A cell as the text table prints it: "0.9815 ± 0.0123" with the column's
/// printf format; the mean alone when n = 1; "-" when n = 0.
std::string format_cell(const report::Column& column, const Summary& s);

/// A figure as CSV and JSONL write it: integers without a fraction, other
/// numbers in the shortest form that reads back to the same double, "nan".
std::string format_number(double v);

}  // namespace attnlab::sweep
