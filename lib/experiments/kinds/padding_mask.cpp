// Course day 4, "The padding mask" (data/course/10_padding_mask.py): a
// batch of sequences of different lengths padded to the longest; masking the
// padded keys (per sequence, for every query) gives them exactly zero
// weight, so padding never enters an average.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/python_format.hpp"
#include "random/generator.hpp"
#include "tensor/row_ops.hpp"

namespace attnlab::experiments {

namespace {

// The script's sentence about sequence 0's padding, for any count of padded
// positions ("the two padded positions get exactly zero weight.").
std::string padding_sentence(int padded) {
  static const std::array<const char*, 11> words = {"zero", "one", "two",   "three", "four", "five",
                                                    "six",  "seven", "eight", "nine",  "ten"};
  if (padded == 0) return "sequence 0 has no padded positions.";
  if (padded == 1) return "the one padded position gets exactly zero weight.";
  const std::string n = padded < static_cast<int>(words.size()) ? words[padded] : std::to_string(padded);
  return "the " + n + " padded positions get exactly zero weight.";
}

Report run(const nlohmann::json& spec, const RunContext&) {
  const auto lengths = spec.at("lengths").get<std::vector<int>>();
  const int B = static_cast<int>(lengths.size());
  const int T = *std::max_element(lengths.begin(), lengths.end());  // padded to the longest

  // pad_mask (B, T): tokens != 0, i.e. 1 on the first lengths[b] positions
  std::vector<std::int64_t> mask(static_cast<std::size_t>(B) * T);
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < T; ++j) mask[static_cast<std::size_t>(b) * T + j] = j < lengths[b] ? 1 : 0;

  Report r;
  r.text = "padding mask, per sequence:\n";
  r.text += torch_int_matrix_str(mask, B, T, "torch.int32") + "\n";

  // scores (B, T, T) = randn after seeding; the mask (B, 1, T) blocks key j
  // of sequence b for every query, then softmax(-1)
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  std::vector<float> w(static_cast<std::size_t>(B) * T * T);
  g.normal(w.data(), w.size());
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < T; ++i) {
      float* row = w.data() + (static_cast<std::size_t>(b) * T + i) * T;
      for (int j = 0; j < T; ++j)
        if (mask[static_cast<std::size_t>(b) * T + j] == 0) row[j] = -std::numeric_limits<float>::infinity();
      tensor::softmax_inplace(row, T);
    }

  // w[0, 0]: sequence 0, the weights of query position 0
  r.text += "\nsequence 0, weights from position 0:\n";
  r.text += "  " + join_formatted("%.3f", w.data(), T) + "\n";
  r.text += padding_sentence(T - lengths[0]) + "\n";
  r.text += "\nwithout it, padding would contribute to every average, and\n";
  r.text += "a short sequence in a batch of long ones would be mostly padding.\n";
  r.data = {{"lengths", lengths},
            {"mask", nlohmann::json::array()},
            {"sequence0_position0_weights", std::vector<double>(w.begin(), w.begin() + T)}};
  for (int b = 0; b < B; ++b) r.data["mask"].push_back(std::vector<int>(mask.begin() + b * T, mask.begin() + (b + 1) * T));
  r.data["weights"] = nlohmann::json::array();  // (B, T, T), for the heatmaps of --plot
  for (int b = 0; b < B; ++b) {
    nlohmann::json rows = nlohmann::json::array();
    for (int i = 0; i < T; ++i) {
      const float* row = w.data() + (static_cast<std::size_t>(b) * T + i) * T;
      rows.push_back(std::vector<double>(row, row + T));
    }
    r.data["weights"].push_back(rows);
  }
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const auto lengths = spec.at("lengths").get<std::vector<int>>();
  const double B = lengths.size(), T = *std::max_element(lengths.begin(), lengths.end());
  // mask (B, T) int64, as JSON and as text; weights (B, T, T), and again as JSON and as text (for --plot)
  return {B * T * (8 + kJsonNumberBytes + kJsonPrintedNumberBytes + 8) +
              B * T * T * (sizeof(float) + kJsonNumberBytes + kJsonPrintedNumberBytes),
          1, "/lengths", "lengths"};
}

}  // namespace

Experiment padding_mask_experiment() {
  using spec::Type;
  return {.name = "padding_mask",
          .summary = "a key padding mask: padded positions get exactly zero attention weight",
          .course_order = 10,
          .params = {{.name = "lengths", .type = Type::IntegerList, .default_value = {3, 5},
                      .doc = "true length of each sequence; all are padded to the longest",
                      .min = 1, .max = 256, .min_items = 1, .max_items = 64},
                     seed_param()},
          .check = nullptr,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
