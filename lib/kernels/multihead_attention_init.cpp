// The parts of multi-head attention that draw from the generator: the
// initialisation and the attention-dropout mask (docs/torch_rng.md §6, §7).
// Kept apart from the maths so that code using only forward/backward does not
// pull in the generator.
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/multihead_attention.hpp"

namespace attnlab::kernels {

float mha_draw_dropout(random::Generator& gen, std::uint8_t* keep, const MhaDims& d, double p) {
  const std::size_t n = std::size_t(d.B) * d.H * d.T * d.keys();
  // F.dropout on the (B·H, T, S) weights: one mask over all of them, in C order
  gen.dropout_mask(keep, n, p);
  return random::dropout_scale(p);
}

void multihead_attention_init(random::Generator& gen, float* in_proj_weight, float* in_proj_bias,
                              float* out_proj_weight, float* out_proj_bias, int C) {
  if (C <= 0)
    throw std::invalid_argument("multihead_attention_init: d_model must be positive, got " + std::to_string(C));
  mha_init(gen, mha_packed_grads(in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, C), C, C, C);
}

namespace {

// xavier_uniform_(w) for a (fan_out, fan_in) matrix: bound sqrt(3)·sqrt(2/(fan_in + fan_out))
void xavier_uniform(random::Generator& gen, float* w, std::size_t fan_out, std::size_t fan_in) {
  const double std = 1.0 * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double bound = std::sqrt(3.0) * std;
  gen.uniform(w, fan_out * fan_in, -bound, bound);
}

}  // namespace

void mha_init(random::Generator& gen, const MhaGrads<float>& p, int C, int kdim, int vdim) {
  if (C <= 0 || kdim <= 0 || vdim <= 0)
    throw std::invalid_argument("mha_init: embed_dim, kdim and vdim must be positive, got " + std::to_string(C) +
                                ", " + std::to_string(kdim) + ", " + std::to_string(vdim));
  const std::size_t c = static_cast<std::size_t>(C);
  const double fan_in = static_cast<double>(C);

  // 1. out_proj = Linear(C, C, bias) initialises itself in its constructor, before
  //    _reset_parameters: kaiming_uniform_(a=sqrt(5)), computed as Python does
  //    (math.sqrt(5)**2 is 5.000000000000001), then the bias with 1/sqrt(fan_in).
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + a * a));
  const double weight_bound = std::sqrt(3.0) * (gain / std::sqrt(fan_in));
  gen.uniform(p.out_proj_weight, c * c, -weight_bound, weight_bound);
  if (p.out_proj_bias) {
    const double bias_bound = 1.0 / std::sqrt(fan_in);
    gen.uniform(p.out_proj_bias, c, -bias_bound, bias_bound);
  }

  // 2. xavier_uniform_ on in_proj_weight (fan_in C, fan_out 3C), or on the
  //    three separate weights (fan_out C each; fan_in C, kdim, vdim)
  const std::size_t cc = c * c;
  const bool packed = kdim == C && vdim == C && p.k_proj_weight == p.q_proj_weight + cc &&
                      p.v_proj_weight == p.k_proj_weight + cc;
  if (packed) {
    xavier_uniform(gen, p.q_proj_weight, 3 * c, c);
  } else {
    xavier_uniform(gen, p.q_proj_weight, c, c);
    xavier_uniform(gen, p.k_proj_weight, c, std::size_t(kdim));
    xavier_uniform(gen, p.v_proj_weight, c, std::size_t(vdim));
  }

  // 3. constant_(in_proj_bias, 0) and constant_(out_proj.bias, 0): the drawn
  //    out_proj bias is overwritten, but its C draws were consumed
  if (p.in_proj_bias)
    for (std::size_t n = 0; n < 3 * c; ++n) p.in_proj_bias[n] = 0.0f;
  if (p.out_proj_bias)
    for (std::size_t n = 0; n < c; ++n) p.out_proj_bias[n] = 0.0f;

  // 4. xavier_normal_ on bias_k, bias_v (1, 1, C): fan_in = fan_out = 1·C
  const double kv_std = 1.0 * std::sqrt(2.0 / static_cast<double>(c + c));
  if (p.bias_k) gen.normal(p.bias_k, c, 0.0, kv_std);
  if (p.bias_v) gen.normal(p.bias_v, c, 0.0, kv_std);
}

}  // namespace attnlab::kernels
