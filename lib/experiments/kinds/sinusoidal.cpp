// Course day 5, "Sinusoidal positions" (data/course/12_sinusoidal.py): the
// fixed table of Vaswani et al. 2017, §3.5 (sin on even columns, cos on odd,
// wavelengths growing geometrically), and the dot products of position 0
// with every position, which fall away smoothly with distance.
//
// The course text lost the "  0  " row prefixes and the dot line's leading
// "  4."; the script prints them, and 12_sinusoidal.torch113.txt (what
// PyTorch 1.13 prints) is the output reproduced here.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/python_format.hpp"
#include "report/text.hpp"
#include "spec/spec_error.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::experiments {

namespace {

// sinusoidal(max_len, width) (P, W), in float32 step by step as the script's
// tensor code computes it.
std::vector<float> sinusoidal(int P, int W) {
  // rate (W/2) = exp(-math.log(10000.0) * i / W), i = 0, 2, 4, ...: the
  // Python float multiplies the float32 tensor as a float32 scalar
  const float neg_log = static_cast<float>(-std::log(10000.0));
  std::vector<float> rate(W / 2);
  for (int k = 0; k < W / 2; ++k) rate[k] = std::exp(neg_log * static_cast<float>(2 * k) / static_cast<float>(W));
  std::vector<float> pe(static_cast<std::size_t>(P) * W, 0.0f);
  for (int p = 0; p < P; ++p)
    for (int k = 0; k < W / 2; ++k) {
      const float angle = static_cast<float>(p) * rate[k];
      pe[static_cast<std::size_t>(p) * W + 2 * k] = std::sin(angle);      // pe[:, 0::2]
      pe[static_cast<std::size_t>(p) * W + 2 * k + 1] = std::cos(angle);  // pe[:, 1::2]
    }
  return pe;
}

// The table's text: "  p  " and "+0.00 " per entry, the dot products, the prose.
double text_bytes(int P, int W) { return P * (16.0 + 6.0 * W) + 8.0 * P + 256; }

Report run(const nlohmann::json& spec, const RunContext&) {
  const int P = spec.at("positions").get<int>(), W = spec.at("d_model").get<int>();
  const std::vector<float> pe = sinusoidal(P, W);

  Report r;
  r.text.reserve(static_cast<std::size_t>(text_bytes(P, W)));
  r.text = report::printf("positional encodings, %d positions of width %d:\n", P, W);
  r.data["encodings"] = nlohmann::json::array();
  for (int p = 0; p < P; ++p) {
    const float* row = pe.data() + static_cast<std::size_t>(p) * W;
    r.text += report::printf("  %d  %s\n", p, join_formatted("%+.2f", row, W));
    r.data["encodings"].push_back(std::vector<double>(row, row + W));
  }
  // pe (P, W) @ pe[0] (W) -> (P)
  std::vector<float> dots(P);
  tensor::gemm<float>(false, true, P, 1, W, 1.0f, pe.data(), W, pe.data(), W, 0.0f, dots.data(), 1);
  r.text += "\ndot product between position 0 and each other position:\n";
  r.text += "  " + join_formatted("%.2f", dots.data(), P) + "\n";
  r.text += "it falls away smoothly, so nearby positions are similar.\n";
  r.data["dot_with_position_0"] = std::vector<double>(dots.begin(), dots.end());
  return r;
}

void check(const nlohmann::json& spec, const std::string& file) {
  const int W = spec.at("d_model").get<int>();
  if (W % 2 != 0)  // sin and cos fill alternate columns
    throw spec::SpecError(file, "/d_model", fmt::format("d_model {} is odd; sin and cos take a column each, so it must be even", W));
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const double P = spec.at("positions").get<int>(), W = spec.at("d_model").get<int>();
  // rate (W/2), pe (P, W), dots (P); the table as JSON (P, W), as text
  // ("+0.00 " per entry, reserved), one row as doubles while it is converted,
  // the list of rows while it grows; then the table printed as JSON, and the
  // text copied and escaped into it
  return {(W / 2 + P * W + P) * sizeof(float) + P * W * (kJsonNumberBytes + kJsonPrintedNumberBytes) +
              4 * text_bytes(P, W) + W * sizeof(double) + 3 * P * kJsonNumberBytes,
          1,
          "/positions", "positions or d_model"};
}

}  // namespace

Experiment sinusoidal_experiment() {
  using spec::Type;
  return {.name = "sinusoidal",
          .summary = "the sinusoidal position table and each position's dot product with position 0",
          .course_order = 12,
          .params = {{.name = "positions", .type = Type::Integer, .default_value = 6,
                      .doc = "rows of the table (positions 0 .. positions-1)", .min = 1, .max = 1024},
                     d_model_param(8, "columns of the table; even (a sin and a cos per frequency)", 2)},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
