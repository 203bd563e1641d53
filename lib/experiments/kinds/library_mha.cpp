// Course day 6, "The library's version" (data/course/14_library_mha.py):
// nn.MultiheadAttention(batch_first=True) called as mha(x, x, x) returns the
// output and the weights averaged over heads; average_attn_weights=False
// keeps one table per head; a boolean causal attn_mask (True = blocked)
// leaves position 0 attending only to itself.
#include <fmt/format.h>

#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/spec_rules.hpp"
#include "experiments/python_format.hpp"
#include "kernels/multihead_attention.hpp"
#include "random/generator.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::experiments {

namespace {

Report run(const nlohmann::json& spec, const RunContext&) {
  const int C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>();
  const int B = spec.at("batch").get<int>(), T = spec.at("length").get<int>();
  const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, H);
  const std::size_t btc = static_cast<std::size_t>(B) * T * C, btt = static_cast<std::size_t>(B) * T * T;

  // mha = nn.MultiheadAttention(C, H, batch_first=True), then x (B, T, C)
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  std::vector<float> in_w(3 * static_cast<std::size_t>(C) * C), in_b(3 * C), out_w(static_cast<std::size_t>(C) * C),
      out_b(C), x(btc);
  kernels::multihead_attention_init(g, in_w.data(), in_b.data(), out_w.data(), out_b.data(), C);
  g.normal(x.data(), x.size());

  std::vector<float> out(btc), cache(kernels::mha_cache_size(d));
  auto forward = [&](std::vector<float>& weights, kernels::MhaWeights which, const kernels::MhaMasks<float>& masks) {
    kernels::multihead_attention_forward<float>(out.data(), weights.data(), which, cache.data(), x.data(), x.data(),
                                           x.data(), masks, {}, in_w.data(), in_b.data(), out_w.data(),
                                           out_b.data(), d);
  };

  // out, weights = mha(x, x, x): weights (B, T, T), the mean over heads
  std::vector<float> averaged(btt);
  forward(averaged, kernels::MhaWeights::averaged, {});
  const std::vector<long long> out_shape = {d.B, d.T, d.C}, averaged_shape = {d.B, d.T, d.S};

  // average_attn_weights=False: weights (B, H, T, T)
  std::vector<float> per_head(btt * H);
  forward(per_head, kernels::MhaWeights::per_head, {});
  const std::vector<long long> per_head_shape = {d.B, d.H, d.T, d.S};

  // attn_mask = torch.triu(ones(T, T, bool), diagonal=1): True above the diagonal = blocked
  std::vector<std::uint8_t> causal(static_cast<std::size_t>(T) * T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) causal[static_cast<std::size_t>(i) * T + j] = j > i;
  std::vector<float> masked(btt);
  forward(masked, kernels::MhaWeights::averaged, {.attn_bool = causal.data()});

  Report r;
  r.text = "output  " + py_shape(out_shape) + "\n";
  r.text += "weights " + py_shape(averaged_shape) + "  averaged over heads by default\n";
  r.text += "per head " + py_shape(per_head_shape) + "\n";
  // w[0, 0]: sequence 0, query position 0
  r.text += "\nwith a causal mask, position 0 attends to: " + join_formatted("%.2f", masked.data(), T) + "\n";
  r.data = {{"output_shape", out_shape},
            {"weights_shape", averaged_shape},
            {"per_head_shape", per_head_shape},
            {"causal_position0_weights", std::vector<double>(masked.begin(), masked.begin() + T)}};
  // Sequence 0's matrices, for the heatmaps of --plot: per head (H, T, T), and causal (T, T).
  r.data["per_head_weights"] = nlohmann::json::array();
  for (int h = 0; h < H; ++h) {
    nlohmann::json rows = nlohmann::json::array();
    for (int i = 0; i < T; ++i) {
      const float* row = per_head.data() + (static_cast<std::size_t>(h) * T + i) * T;  // b = 0
      rows.push_back(std::vector<double>(row, row + T));
    }
    r.data["per_head_weights"].push_back(rows);
  }
  r.data["causal_weights"] = nlohmann::json::array();
  for (int i = 0; i < T; ++i)
    r.data["causal_weights"].push_back(std::vector<double>(masked.begin() + i * T, masked.begin() + (i + 1) * T));
  return r;
}

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file);
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const int C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>();
  const int B = spec.at("batch").get<int>(), T = spec.at("length").get<int>();
  const double c = C, btc = static_cast<double>(B) * T * C, btt = static_cast<double>(B) * T * T;
  // weights of the layer, x and out (B, T, C), the cache, averaged and masked weights (B, T, T),
  // per-head weights (B, H, T, T), the causal mask (T, T) bytes
  const double floats = 4 * c * c + 4 * c + 2 * btc + static_cast<double>(kernels::mha_cache_size(kernels::mha_dims(B, T, T, C, H))) +
                        2 * btt + btt * H;
  // sequence 0's per-head (H, T, T) and causal (T, T) weights, as JSON and as text (for --plot)
  const double json_numbers = (static_cast<double>(H) + 1) * T * T * (kJsonNumberBytes + kJsonPrintedNumberBytes);
  return {floats * sizeof(float) + static_cast<double>(T) * T + json_numbers, 1, "/length",
          "length, batch, n_heads or d_model"};
}

}  // namespace

Experiment library_mha_experiment() {
  using spec::Type;
  return {.name = "library_mha",
          .summary = "nn.MultiheadAttention: output and weight shapes, per-head weights, a causal mask",
          .course_order = 14,
          .params = {d_model_param(32, "embed_dim C"),
                     n_heads_param(4, "num_heads H; must divide d_model"),
                     {.name = "batch", .type = Type::Integer, .default_value = 2,
                      .doc = "sequences in the input batch", .min = 1, .max = 64},
                     {.name = "length", .type = Type::Integer, .default_value = 6,
                      .doc = "positions per sequence", .min = 1, .max = 512},
                     seed_param()},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
