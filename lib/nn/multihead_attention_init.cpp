// The parts of multi-head attention that draw from the generator: the
// initialisation and the attention-dropout mask (torch_rng.md §6, §7).
// Kept apart from the maths so that code using only forward/backward does not
// pull in the generator.
#include <cmath>
#include <stdexcept>
#include <string>

#include "nn/multihead_attention.hpp"

namespace attnlab::nn {

float mha_draw_dropout(random::Generator& gen, std::uint8_t* keep, const MhaDims& d, double p) {
  const std::size_t n = std::size_t(d.B) * d.H * d.T * d.S;
  // F.dropout on the (B·H, T, S) weights: one mask over all of them, in C order
  gen.dropout_mask(keep, n, p);
  return random::dropout_scale(p);
}

void multihead_attention_init(random::Generator& gen, float* in_proj_weight, float* in_proj_bias,
                              float* out_proj_weight, float* out_proj_bias, int C) {
  if (C <= 0)
    throw std::invalid_argument("multihead_attention_init: d_model must be positive, got " + std::to_string(C));
  const std::size_t c = static_cast<std::size_t>(C);
  const double fan_in = static_cast<double>(C);

  // 1. out_proj = Linear(C, C) initialises itself in its constructor, before
  //    _reset_parameters: kaiming_uniform_(a=sqrt(5)), computed as Python does
  //    (math.sqrt(5)**2 is 5.000000000000001), then the bias with 1/sqrt(fan_in).
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + a * a));
  const double weight_bound = std::sqrt(3.0) * (gain / std::sqrt(fan_in));
  gen.uniform(out_proj_weight, c * c, -weight_bound, weight_bound);
  const double bias_bound = 1.0 / std::sqrt(fan_in);
  gen.uniform(out_proj_bias, c, -bias_bound, bias_bound);

  // 2. xavier_uniform_(in_proj_weight): fan_in = C, fan_out = 3C
  const double xavier_std = 1.0 * std::sqrt(2.0 / static_cast<double>(c + 3 * c));
  const double xavier_bound = std::sqrt(3.0) * xavier_std;
  gen.uniform(in_proj_weight, 3 * c * c, -xavier_bound, xavier_bound);

  // 3. constant_(in_proj_bias, 0) and constant_(out_proj.bias, 0): the drawn
  //    out_proj bias is overwritten, but its C draws were consumed
  for (std::size_t n = 0; n < 3 * c; ++n) in_proj_bias[n] = 0.0f;
  for (std::size_t n = 0; n < c; ++n) out_proj_bias[n] = 0.0f;
}

}  // namespace attnlab::nn
