// Course day 2, "Why the square root" (data/course/04_sqrt_d.py): the
// spread of raw dot-product scores grows like sqrt(d), which saturates the
// softmax; dividing by sqrt(d) (Vaswani et al. 2017, §3.2.1) keeps it soft.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "random/generator.hpp"
#include "report/text.hpp"
#include "tensor/gemm.hpp"
#include "tensor/row_ops.hpp"

namespace attnlab::experiments {

namespace {

struct Row {
  int width;
  double score_std, max_weight, max_weight_scaled;
};

// One query (1, d) against n_keys keys (n_keys, d), drawn in that order from
// the global generator as torch.randn does.
Row measure(random::Generator& g, int d, int n_keys) {
  std::vector<float> q(d), k(static_cast<std::size_t>(n_keys) * d), raw(n_keys);
  g.normal(q.data(), q.size());
  g.normal(k.data(), k.size());
  // raw (1, n_keys) = q (1, d) · k^T (d, n_keys)
  tensor::gemm<float>(false, true, 1, n_keys, d, 1.0f, q.data(), d, k.data(), d, 0.0f, raw.data(), n_keys);
  Row row{d, tensor::std_unbiased(raw.data(), raw.size()), 0, 0};
  std::vector<float> weights = raw;
  tensor::softmax_inplace(weights.data(), weights.size());
  row.max_weight = tensor::max_value(weights.data(), weights.size());
  // PyTorch divides the float32 tensor by the Python float d ** 0.5.
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(d)));
  for (auto& v : raw) v /= scale;
  tensor::softmax_inplace(raw.data(), raw.size());
  row.max_weight_scaled = tensor::max_value(raw.data(), raw.size());
  return row;
}

Report run(const nlohmann::json& spec, const RunContext&) {
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  Report r;
  r.text = report::printf("%8s %16s %16s %16s\n", "width", "score std", "max weight", "max weight scaled");
  r.data["rows"] = nlohmann::json::array();
  r.table = {.label_header = "width",
             .columns = {{"score std", "score_std", "%.3f"},
                         {"max weight", "max_weight", "%.4f"},
                         {"max weight scaled", "max_weight_scaled", "%.4f"}}};
  for (int d : spec.at("widths").get<std::vector<int>>()) {
    const Row row = measure(g, d, spec.at("n_keys").get<int>());
    r.table.add_row(std::to_string(row.width), {row.score_std, row.max_weight, row.max_weight_scaled});
    r.text += report::printf("%8d %16.3f %16.4f %16.4f\n", row.width, row.score_std, row.max_weight,
                             row.max_weight_scaled);
    r.data["rows"].push_back({{"width", row.width},
                              {"score_std", row.score_std},
                              {"max_weight", row.max_weight},
                              {"max_weight_scaled", row.max_weight_scaled}});
  }
  return r;
}

// Rows run one after another, so the peak is the largest row's: q (d),
// k (n_keys, d), raw scores and their softmax (n_keys).
MemoryEstimate memory(const nlohmann::json& spec, int) {
  const auto widths = spec.at("widths").get<std::vector<int>>();
  const double n = spec.at("n_keys").get<int>();
  MemoryEstimate e{0, 1, "/n_keys", "widths or n_keys"};
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const double bytes = (widths[i] + n * widths[i] + 2 * n) * sizeof(float);
    if (bytes > e.bytes) e = {bytes, 1, fmt::format("/widths/{}", i), "widths or n_keys"};
  }
  return e;
}

}  // namespace

Experiment sqrt_d_experiment() {
  using spec::Type;
  return {.name = "sqrt_d",
          .summary = "why attention divides by sqrt(d): score spread and softmax saturation by width",
          .course_order = 4,
          .params = {{.name = "widths",
                      .type = Type::IntegerList,
                      .default_value = {8, 64, 512},
                      .doc = "query/key widths d to compare",
                      .min = 1,
                      .max = 65536},
                     {.name = "n_keys",
                      .type = Type::Integer,
                      .default_value = 20,
                      .doc = "keys scored against the one query (at least 2 for a standard deviation)",
                      .min = 2,
                      .max = 100000},
                     seed_param()},
          .check = nullptr,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
