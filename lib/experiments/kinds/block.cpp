// Course day 7, "The block" (data/course/17_block.py): one pre-norm
// transformer block keeps the shape of its input, (B, T, C) in and out, and
// costs 12704 parameters at width 32 — a third of them in attention.
#include <fmt/format.h>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/spec_rules.hpp"
#include "experiments/python_format.hpp"
#include "kernels/pre_norm_block.hpp"
#include "kernels/parameters.hpp"
#include "report/text.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::experiments {

namespace {

Report run(const nlohmann::json& spec, const RunContext&) {
  const int B = spec.at("batch").get<int>(), T = spec.at("length").get<int>();
  const int C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>();
  const int F = spec.at("ff_mult").get<int>() * C;
  const double p = spec.at("dropout").get<double>();
  random::Generator g(spec.at("seed").get<std::uint64_t>());

  // block = AttentionBlock(C, H): its parameters, drawn in constructor order.
  kernels::Parameters params;
  for (const auto& s : kernels::pre_norm_block_param_specs(C, F)) params.add(s.name, s.shape);
  params.allocate();
  auto v = [&](std::size_t i) { return params.value(i); };
  const kernels::PreNormTensors<float> w{v(0), v(1), v(2), v(3), v(4), v(5), v(6), v(7), v(8), v(9), v(10), v(11)};
  kernels::pre_norm_block_init(g, w, C, F);

  // x = torch.randn(B, T, C); block(x) in training mode, as a fresh module is.
  std::vector<float> x(static_cast<std::size_t>(B) * T * C), out(x.size());
  g.normal(x.data(), x.size());
  kernels::PreNormWorkspace<float> ws(B, T, C, H, F);
  kernels::pre_norm_block_forward(out.data(), ws, x.data(), w, {B, T, C, H, F, p}, &g);

  const std::vector<long long> shape{B, T, C};
  Report r;
  r.text = "in  " + py_shape(shape) + "  out " + py_shape(shape) + "\n";
  r.text += report::printf("parameters %d\n", static_cast<int>(params.count()));
  double sum = 0;
  for (float o : out) sum += o;
  r.data = {{"in_shape", shape}, {"out_shape", shape}, {"parameters", params.count()}, {"out_sum", sum}};
  return r;
}

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file);
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const int B = spec.at("batch").get<int>(), T = spec.at("length").get<int>();
  const int C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>();
  const int F = spec.at("ff_mult").get<int>() * C;
  // parameters and their gradients, x and out (B, T, C), the block's workspace
  const double bytes = (2.0 * kernels::pre_norm_block_param_count(C, F) + 2.0 * B * T * C) * sizeof(float) +
                       static_cast<double>(kernels::PreNormWorkspace<float>::bytes(B, T, C, H, F));
  return {bytes, 1, T * static_cast<double>(H) >= C ? "/length" : "/batch", "length, batch, d_model or ff_mult"};
}

}  // namespace

Experiment block_experiment() {
  using spec::Type;
  return {.name = "block",
          .summary = "one pre-norm transformer block: shape in and out, and its parameter count",
          .course_order = 17,
          .params = {d_model_param(32, "block width"),
                     n_heads_param(4),
                     {.name = "ff_mult", .type = Type::Integer, .default_value = 4,
                      .doc = "feed-forward width as a multiple of d_model", .min = 1, .max = 16},
                     {.name = "dropout", .type = Type::Number, .default_value = 0.1,
                      .doc = "dropout on attention weights and feed-forward output", .min = 0, .max = 0.95},
                     {.name = "batch", .type = Type::Integer, .default_value = 2, .doc = "sequences in the input",
                      .min = 1, .max = 4096},
                     {.name = "length", .type = Type::Integer, .default_value = 8, .doc = "positions per sequence",
                      .min = 1, .max = 4096},
                     seed_param()},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
