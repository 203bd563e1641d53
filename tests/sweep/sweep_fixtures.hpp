// A plan and run states built by hand, for aggregation and format tests
// that need no process: two learning rates x three seeds of a two-row table.
#pragma once

#include <nlohmann/json.hpp>

#include "report/table.hpp"
#include "sweep/plan.hpp"
#include "sweep/run_dir.hpp"

namespace attnlab::sweep::testing {

/// A result.json of a kind with a table "hidden size | accuracy | time".
inline nlohmann::json result_with(double acc2, double acc64, double seconds) {
  report::Table t{.label_header = "hidden size",
                  .columns = {{"accuracy", "accuracy", "%.4f"}, {"time", "seconds", "%.0fs", true}}};
  t.add_row("2", {acc2, seconds});
  t.add_row("64", {acc64, seconds});
  return {{"status", "ok"}, {"table", report::to_json(t)}, {"data", nlohmann::json::object()}};
}

/// lr = 0.001, 0.003 (swept), seed = 0, 1, 2 (swept), epochs = 1 (fixed).
inline Plan hand_plan() {
  Plan p;
  p.spec_file = "b.json";
  p.kind = "bottleneck";
  p.axes = {{"lr", {0.001, 0.003}}, {"seed", {0, 1, 2}}, {"epochs", {1}}};
  for (std::size_t i = 0; i < 6; ++i) {
    PlannedRun r;
    r.index = i;
    r.params = {{"lr", p.axes[0].values[i / 3]}, {"seed", p.axes[1].values[i % 3]}, {"epochs", 1}};
    r.hash = "h" + std::to_string(i);
    p.runs.push_back(r);
  }
  return p;
}

/// lr 0.001: accuracies (0.5, 0.9), (0.6, 0.8), (0.7, 1.0); lr 0.003: run 3
/// ok (0.4, 0.95), run 4 failed, run 5 not run.
inline std::vector<RunState> hand_states() {
  std::vector<RunState> s(6);
  s[0] = {Status::done, result_with(0.5, 0.9, 11)};
  s[1] = {Status::done, result_with(0.6, 0.8, 12)};
  s[2] = {Status::done, result_with(0.7, 1.0, 13)};
  s[3] = {Status::done, result_with(0.4, 0.95, 14)};
  s[4] = {Status::failed, {{"status", "failed"}, {"error", "out of memory"}}};
  s[5] = {Status::pending, nullptr};
  return s;
}

}  // namespace attnlab::sweep::testing
