// Course day 6, "What attention costs" (data/course/15_cost_table.py): by
// sequence length T, attention computes T*T scores (memory and time grow
// with the square of the length) where a recurrent layer takes T steps
// (linear, but one after another).
#include <vector>

#include "experiments/kinds/kinds.hpp"
#include "report/text.hpp"

namespace attnlab::experiments {

namespace {

Report run(const nlohmann::json& spec, const RunContext&) {
  Report r;
  r.text = report::printf("%10s %16s %18s\n", "length", "attention scores", "recurrent steps");
  r.data["rows"] = nlohmann::json::array();
  r.table = {.label_header = "length",
             .columns = {{"attention scores", "attention_scores", "%.0f"},
                         {"recurrent steps", "recurrent_steps", "%.0f"}}};
  for (long long T : spec.at("lengths").get<std::vector<long long>>()) {
    const long long scores = T * T, steps = T;  // one score per (query, key) pair; one step per position
    r.table.add_row(std::to_string(T), {static_cast<double>(scores), static_cast<double>(steps)});
    r.text += report::printf("%10d %16d %18d\n", T, scores, steps);
    r.data["rows"].push_back({{"length", T}, {"attention_scores", scores}, {"recurrent_steps", steps}});
  }
  r.text += "\nattention computes a score for every pair of positions, so\n";
  r.text += "memory and time grow with the square of the length. Recurrence\n";
  r.text += "grows linearly, but cannot be parallelised along the sequence.\n";
  return r;
}

// Counting only: a few numbers per row.
MemoryEstimate memory(const nlohmann::json& spec, int) {
  return {256.0 * spec.at("lengths").size() + 4096, 1, "/lengths", "lengths"};
}

}  // namespace

Experiment cost_table_experiment() {
  using spec::Type;
  return {.name = "cost_table",
          .summary = "attention scores (T*T) versus recurrent steps (T) by sequence length",
          .course_order = 15,
          .params = {{.name = "lengths", .type = Type::IntegerList, .default_value = {8, 128, 1024, 8192},
                      .doc = "sequence lengths T, one row each", .min = 1, .max = 1e9}},
          .check = nullptr,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
