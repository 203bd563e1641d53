#include "optim/adamw.hpp"

#include <array>
#include <cmath>

#include <xsimd/xsimd.hpp>

namespace attnlab::optim {

AdamW::AdamW(std::size_t n_params, AdamWConfig config) : c_(config), m_(n_params, 0.0f), v_(n_params, 0.0f) {}

void AdamW::step(float* params, const float* grads) {
  ++t_;
  // Scalars are computed in double, as Python does, and meet the float32
  // tensors as float32, as PyTorch's CPU kernels take them.
  const float decay = static_cast<float>(1.0 - c_.lr * c_.weight_decay);
  const float b1 = static_cast<float>(c_.beta1), one_minus_b1 = static_cast<float>(1.0 - c_.beta1);
  const float b2 = static_cast<float>(c_.beta2), one_minus_b2 = static_cast<float>(1.0 - c_.beta2);
  const double bias_correction1 = 1.0 - std::pow(c_.beta1, static_cast<double>(t_));
  const double bias_correction2 = 1.0 - std::pow(c_.beta2, static_cast<double>(t_));
  const float step_size = static_cast<float>(c_.lr / bias_correction1);
  const float bc2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
  const float eps = static_cast<float>(c_.eps);
  const float neg_step = -step_size;
  const std::size_t n = m_.size();
  float* m = m_.data();
  float* v = v_.data();
  // One PyTorch kernel per line (torch/optim/adamw.py, _single_tensor_adamw),
  // each rounding where that kernel rounds; this file is compiled with
  // -ffp-contract=off so that only the explicit fma calls fuse. Every
  // operation is IEEE-rounded (mul, fma, sqrt, div, add), so the registers
  // of 8 and the scalar tail give the same bytes per element; the vector
  // form keeps sqrt and the two divisions from running one float at a time.
  auto update = [&](auto g, auto p, auto mi, auto vi) {
    using std::fma, std::sqrt;  // floats; batches find xsimd's by ADL
    using V = decltype(g);
    p = p * V(decay);                                   // param.mul_(1 - lr * weight_decay)
    mi = fma(g, V(one_minus_b1), mi * V(b1));           // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1): fmadd
    vi = vi * V(b2);                                    // exp_avg_sq.mul_(beta2)
    vi = fma(V(one_minus_b2) * g, g, vi);               //   .addcmul_(grad, grad, value=1 - beta2): self + (value * t1) * t2, which PyTorch's AVX2 build contracts
    const V denom = sqrt(vi) / V(bc2_sqrt) + V(eps);    // (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
    p = p + V(neg_step) * mi / denom;                   // param.addcdiv_(exp_avg, denom, value=-step_size)
    return std::array<V, 3>{p, mi, vi};
  };
  using batch = xsimd::batch<float>;
  constexpr std::size_t W = batch::size;
  std::size_t i = 0;
  for (; i + W <= n; i += W) {
    const auto [p, mi, vi] = update(batch::load_unaligned(grads + i), batch::load_unaligned(params + i),
                                    batch::load_unaligned(m + i), batch::load_unaligned(v + i));
    p.store_unaligned(params + i);
    mi.store_unaligned(m + i);
    vi.store_unaligned(v + i);
  }
  for (; i < n; ++i) {
    const auto [p, mi, vi] = update(grads[i], params[i], m[i], v[i]);
    params[i] = p;
    m[i] = mi;
    v[i] = vi;
  }
}

}  // namespace attnlab::optim
