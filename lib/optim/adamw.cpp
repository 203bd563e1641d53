#include "optim/adamw.hpp"

#include <cmath>


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
  // One PyTorch kernel per line (torch/optim/adamw.py, _single_tensor_adamw),
  // each rounding where that kernel rounds; this file is compiled with
  // -ffp-contract=off so that only the explicit fmaf calls fuse.
  for (std::size_t i = 0; i < n; ++i) {
    const float g = grads[i];
    params[i] *= decay;                                // param.mul_(1 - lr * weight_decay)
    m_[i] = std::fma(g, one_minus_b1, m_[i] * b1);     // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1): fmadd
    v_[i] *= b2;                                       // exp_avg_sq.mul_(beta2)
    v_[i] = std::fma(one_minus_b2 * g, g, v_[i]);     //   .addcmul_(grad, grad, value=1 - beta2): self + (value * t1) * t2, which PyTorch's AVX2 build contracts
    const float denom = std::sqrt(v_[i]) / bc2_sqrt + eps;  // (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
    params[i] = params[i] + neg_step * m_[i] / denom;  // param.addcdiv_(exp_avg, denom, value=-step_size)
  }
}

}  // namespace attnlab::optim
