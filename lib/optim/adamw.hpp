// AdamW: Adam with decoupled weight decay.
#pragma once

#include <cstddef>
#include <vector>

namespace attnlab::optim {

/// torch.optim.AdamW's hyperparameters; the defaults are PyTorch 1.13's
/// except lr, which the course sets to 3e-3.
struct AdamWConfig {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
};

/// Loshchilov & Hutter 2019 ("Decoupled Weight Decay Regularization",
/// Algorithm 2), in the order of operations of PyTorch 1.13's
/// _single_tensor_adamw: decay the weights by (1 - lr·wd), update the two
/// moment estimates, then p += (-lr/(1-β1^t) · m) / (sqrt(v)/sqrt(1-β2^t) + eps),
/// rounding where PyTorch's CPU kernels round: bit for bit equal to PyTorch
/// 1.13's on AVX2 (tests/optim/optim_parity_test.cpp).
/// The moment buffers are allocated once, in the constructor.
class AdamW {
 public:
  AdamW(std::size_t n_params, AdamWConfig config);
  /// One step over the flat parameter and gradient buffers (n_params each).
  void step(float* params, const float* grads);
  long steps_taken() const { return t_; }
  /// The learning rate of the next steps, as a scheduler sets
  /// param_group['lr'] between steps; the moments and t are kept.
  void set_lr(double lr) { c_.lr = lr; }
  double lr() const { return c_.lr; }

 private:
  AdamWConfig c_;
  std::vector<float> m_, v_;
  long t_ = 0;
};

}  // namespace attnlab::optim
