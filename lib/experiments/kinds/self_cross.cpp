// Course day 3, "Self- and cross-attention" (data/course/08_self_cross.py):
// the same attend(q, k, v) used two ways. Self-attention takes queries, keys
// and values from the target; cross-attention takes queries from the target
// and keys and values from the source. Either way there is one output per
// query position, so both outputs have the target's shape.
#include <algorithm>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/plain_attention.hpp"
#include "experiments/python_format.hpp"
#include "random/generator.hpp"

namespace attnlab::experiments {

namespace {

// attend(q, k, v) over a batch: q (B, T, C), k = v (B, S, C) -> (B, T, C).
// Returns the output's shape, read off the buffers it was computed in.
std::vector<long long> attend(std::vector<float>& out, const std::vector<float>& q, const std::vector<float>& kv,
                              int B, int T, int S, int C) {
  const std::size_t tc = static_cast<std::size_t>(T) * C, sc = static_cast<std::size_t>(S) * C;
  out.assign(static_cast<std::size_t>(B) * tc, 0.0f);
  for (int b = 0; b < B; ++b)
    plain_attention(out.data() + b * tc, nullptr, q.data() + b * tc, kv.data() + b * sc, kv.data() + b * sc, T, S,
                    C, C);
  return {B, static_cast<long long>(out.size() / B / C), C};
}

Report run(const nlohmann::json& spec, const RunContext&) {
  const int B = spec.at("batch").get<int>(), C = spec.at("d_model").get<int>();
  const int S = spec.at("source_length").get<int>(), T = spec.at("target_length").get<int>();
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  // source (B, S, C) first, then target (B, T, C)
  std::vector<float> source(static_cast<std::size_t>(B) * S * C), target(static_cast<std::size_t>(B) * T * C);
  g.normal(source.data(), source.size());
  g.normal(target.data(), target.size());

  std::vector<float> self_out, cross_out;
  const auto self_shape = attend(self_out, target, target, B, T, T, C);
  const auto cross_shape = attend(cross_out, target, source, B, T, S, C);

  Report r;
  r.text = "self-attention on the target   " + py_shape(self_shape) + "\n";
  r.text += "cross-attention to the source  " + py_shape(cross_shape) + "\n";
  r.text += "\none output per query position either way. Cross-attention lets\n";
  r.text += "each output position read the whole input.\n";
  r.data = {{"self_attention_shape", self_shape}, {"cross_attention_shape", cross_shape}};
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const double B = spec.at("batch").get<int>(), C = spec.at("d_model").get<int>();
  const double S = spec.at("source_length").get<int>(), T = spec.at("target_length").get<int>();
  // source (B, S, C), target, self_out, cross_out (B, T, C), one sequence's weights (T, max(T, S))
  return {(B * S * C + 3 * B * T * C + T * std::max(T, S)) * sizeof(float), 1,
          S > T ? "/source_length" : "/target_length", "batch, d_model, source_length or target_length"};
}

}  // namespace

Experiment self_cross_experiment() {
  using spec::Type;
  return {.name = "self_cross",
          .summary = "self- versus cross-attention: both give one output per query (target) position",
          .course_order = 8,
          .params = {{.name = "source_length", .type = Type::Integer, .default_value = 7,
                      .doc = "positions of the source (keys and values of cross-attention)", .min = 1, .max = 1024},
                     {.name = "target_length", .type = Type::Integer, .default_value = 4,
                      .doc = "positions of the target (the queries)", .min = 1, .max = 1024},
                     d_model_param(16, "width of every position"),
                     {.name = "batch", .type = Type::Integer, .default_value = 1,
                      .doc = "sequences per batch", .min = 1, .max = 64},
                     seed_param()},
          .check = nullptr,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
