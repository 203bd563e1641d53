// nn.Dropout over xtensor (torch/nn/modules/dropout.py): in training mode
// each element is zeroed with probability p and the rest scaled by
// 1/(1-p), the mask drawn from the generator as PyTorch draws it; in eval
// mode the identity. The maths is lib/kernels/dropout.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab::nn {

class Dropout {
 public:
  /// Throws std::invalid_argument unless 0 <= p <= 1. `gen` must outlive the module.
  explicit Dropout(double p, Generator& gen);

  void train(bool on = true) { training_ = on; }
  void eval() { training_ = false; }
  bool is_training() const { return training_; }

  template <std::size_t N>
  Tensor<N> forward(const Tensor<N>& x) {
    Tensor<N> out = Tensor<N>::from_shape(x.shape());
    forward_n(out.data(), x.data(), x.size());
    return out;
  }
  /// d(loss)/dx through the mask of the last forward.
  template <std::size_t N>
  Tensor<N> backward(const Tensor<N>& grad_output) const {
    Tensor<N> dx = xt::zeros<float>(grad_output.shape());
    backward_n(dx.data(), grad_output.data(), grad_output.size());
    return dx;
  }

 private:
  void forward_n(float* out, const float* x, std::size_t n);
  void backward_n(float* dx, const float* dy, std::size_t n) const;
  double p_;
  Generator* gen_;
  bool training_ = true, dropped_ = false;
  std::vector<std::uint8_t> keep_;
  float scale_ = 1.0f;
};

}  // namespace attnlab::nn
