// Course day 3, "Multi-head attention" (data/course/06_mha_shapes.py): a
// hand-written MultiHeadAttention module (one qkv Linear, heads split off the
// width, an out Linear) keeps the input's shape, returns one weight table per
// head, and has 4224 parameters at width 32.
//
// The script's module is the maths of nn.MultiheadAttention with qkv as
// in_proj ([Wq; Wk; Wv] rows, head h on columns h*D .. h*D+D-1) and out as
// out_proj, so it runs here as kernels::multihead_attention_forward on weights
// initialised as its two nn.Linear layers are.
#include <fmt/format.h>

#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/spec_rules.hpp"
#include "experiments/python_format.hpp"
#include "kernels/linear.hpp"
#include "kernels/multihead_attention.hpp"
#include "kernels/parameters.hpp"
#include "random/generator.hpp"
#include "report/text.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::experiments {

namespace {

Report run(const nlohmann::json& spec, const RunContext&) {
  const int C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>();
  const int B = spec.at("batch").get<int>(), T = spec.at("length").get<int>();
  const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, H);
  random::Generator g(spec.at("seed").get<std::uint64_t>());

  // The module's parameters in registration order (its state_dict).
  kernels::Parameters p;
  const std::size_t qkv_w = p.add("qkv.weight", {3 * C, C}), qkv_b = p.add("qkv.bias", {3 * C});
  const std::size_t out_w = p.add("out.weight", {C, C}), out_b = p.add("out.bias", {C});
  p.allocate();
  kernels::linear_init(g, p.value(qkv_w), p.value(qkv_b), C, 3 * C);  // self.qkv = nn.Linear(C, 3C)
  kernels::linear_init(g, p.value(out_w), p.value(out_b), C, C);      // self.out = nn.Linear(C, C)

  // x (B, T, C) after the parameters, as the script draws it
  std::vector<float> x(static_cast<std::size_t>(B) * T * C);
  g.normal(x.data(), x.size());

  // out (B, T, C), weights (B, H, T, T) per head
  std::vector<float> out(x.size()), weights(static_cast<std::size_t>(B) * H * T * T), cache(kernels::mha_cache_size(d));
  kernels::multihead_attention_forward<float>(out.data(), weights.data(), kernels::MhaWeights::per_head, cache.data(),
                                         x.data(), x.data(), x.data(), {}, {}, p.value(qkv_w), p.value(qkv_b),
                                         p.value(out_w), p.value(out_b), d);

  const std::vector<long long> x_shape = {d.B, d.T, d.C}, out_shape = {d.B, d.T, d.C},
                               w_shape = {d.B, d.H, d.T, d.S};
  Report r;
  r.text = "input    " + py_shape(x_shape) + "\n";
  r.text += "output   " + py_shape(out_shape) + "  same shape as the input\n";
  r.text += "weights  " + py_shape(w_shape) + "  = (batch, heads, query, key)\n";
  r.text += report::printf("parameters %d\n", p.count());
  r.data = {{"input_shape", x_shape}, {"output_shape", out_shape}, {"weights_shape", w_shape},
            {"parameters", p.count()}};
  return r;
}

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file);  // the script's assert
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const int C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>();
  const int B = spec.at("batch").get<int>(), T = spec.at("length").get<int>();
  const double c = C, btc = static_cast<double>(B) * T * C;
  // parameters and their gradients, x and out (B, T, C), weights (B, H, T, T), the attention cache
  const double floats = 2 * (4 * c * c + 4 * c) + 2 * btc + static_cast<double>(B) * H * T * T +
                        static_cast<double>(kernels::mha_cache_size(kernels::mha_dims(B, T, T, C, H)));
  return {floats * sizeof(float), 1, "/length", "length, batch, n_heads or d_model"};
}

}  // namespace

Experiment mha_shapes_experiment() {
  using spec::Type;
  return {.name = "mha_shapes",
          .summary = "multi-head attention by hand: input, output and per-head weight shapes, parameter count",
          .course_order = 6,
          .params = {d_model_param(32, "model width C (the qkv and out layers' size)"),
                     n_heads_param(4, "attention heads H; must divide d_model"),
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
