// Course day 2, "Attention by hand" (data/course/03_attention_weights.py):
// one head written out (scores = Q·K^T / sqrt(d), softmax, weights · V) on
// 5 positions of width 8. Shows the shapes (one output per position, one
// weight row per query), that each weight row sums to 1, and the 5×5 table.
#include <cmath>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/plain_attention.hpp"
#include "experiments/python_format.hpp"
#include "random/generator.hpp"
#include "report/text.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::experiments {

namespace {

// torch.allclose(a, b) with its defaults: |a - b| <= atol + rtol * |b|.
bool allclose(float a, float b, double rtol = 1e-5, double atol = 1e-8) {
  return std::abs(static_cast<double>(a) - b) <= atol + rtol * std::abs(static_cast<double>(b));
}

Report run(const nlohmann::json& spec, const RunContext&) {
  const int T = spec.at("positions").get<int>(), C = spec.at("d_model").get<int>();
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  const std::size_t tc = static_cast<std::size_t>(T) * C, cc = static_cast<std::size_t>(C) * C;

  // x (T, C), then Wq, Wk, Wv (C, C) each = randn(C, C) * 0.4, drawn in that order
  std::vector<float> x(tc), w(3 * cc);
  g.normal(x.data(), x.size());
  for (int m = 0; m < 3; ++m) {
    float* wm = w.data() + m * cc;
    g.normal(wm, cc);
    for (std::size_t n = 0; n < cc; ++n) wm[n] *= 0.4f;
  }
  // q, k, v (T, C) = x · Wq, x · Wk, x · Wv
  std::vector<float> qkv(3 * tc);
  for (int m = 0; m < 3; ++m)
    tensor::gemm<float>(false, false, T, C, C, 1.0f, x.data(), C, w.data() + m * cc, C, 0.0f, qkv.data() + m * tc, C);
  // out (T, C), weights (T, T)
  std::vector<float> out(tc), weights(static_cast<std::size_t>(T) * T);
  plain_attention(out.data(), weights.data(), qkv.data(), qkv.data() + tc, qkv.data() + 2 * tc, T, T, C, C);

  // w.sum(-1) against ones(T): float32 sums of each row
  bool rows_sum_to_one = true;
  for (int i = 0; i < T; ++i) {
    float sum = 0.0f;
    for (int j = 0; j < T; ++j) sum += weights[static_cast<std::size_t>(i) * T + j];
    rows_sum_to_one = rows_sum_to_one && allclose(sum, 1.0f);
  }

  Report r;
  r.text = "input   " + py_shape({T, C}) + "\n";
  r.text += "output  " + py_shape({T, C}) + "  one vector per position\n";
  r.text += "weights " + py_shape({T, T}) + "  one row per query\n";
  r.text += std::string("\nevery row sums to 1: ") + (rows_sum_to_one ? "True" : "False") + "\n";
  r.text += "\nweights (row = the position doing the looking):\n";
  r.data["weights"] = nlohmann::json::array();
  for (int i = 0; i < T; ++i) {
    const float* row = weights.data() + static_cast<std::size_t>(i) * T;
    r.text += report::printf("  %d  %s\n", i, join_formatted("%.3f", row, T));
    r.data["weights"].push_back(std::vector<double>(row, row + T));
  }
  r.data["input_shape"] = {T, C};
  r.data["output_shape"] = {T, C};
  r.data["weights_shape"] = {T, T};
  r.data["rows_sum_to_one"] = rows_sum_to_one;
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const double T = spec.at("positions").get<int>(), C = spec.at("d_model").get<int>();
  // x, qkv, out (T, C)s; Wq, Wk, Wv (C, C); weights (T, T), as JSON and as text
  return {(5 * T * C + 3 * C * C + T * T) * sizeof(float) + T * T * (kJsonNumberBytes + kJsonPrintedNumberBytes + 16),
          1, "/d_model",
          "d_model or positions"};
}

}  // namespace

Experiment attention_weights_experiment() {
  using spec::Type;
  return {.name = "attention_weights",
          .summary = "one attention head by hand: shapes, rows summing to 1, the position-by-position weights",
          .course_order = 3,
          .params = {{.name = "positions", .type = Type::Integer, .default_value = 5,
                      .doc = "sequence length T (the weight table is T by T)", .min = 1, .max = 64},
                     d_model_param(8, "width d of each position and of Q, K, V"),
                     seed_param()},
          .check = nullptr,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
