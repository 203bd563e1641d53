// nn.GELU over xtensor, the exact erf form (approximate='none',
// torch/nn/modules/activation.py). The maths is lib/kernels/gelu.hpp.
#pragma once

#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab::nn {

/// GELU(x) = x·Φ(x). No parameters.
class GELU {
 public:
  template <std::size_t N>
  Tensor<N> forward(const Tensor<N>& x) const {
    Tensor<N> out = Tensor<N>::from_shape(x.shape());
    forward_n(out.data(), x.data(), x.size());
    return out;
  }
  /// d(loss)/dx given dy and the x of the forward pass.
  template <std::size_t N>
  Tensor<N> backward(const Tensor<N>& grad_output, const Tensor<N>& x) const {
    check_shape("GELU::backward", "grad_output", shape_of(grad_output),
                std::vector<long>(x.shape().begin(), x.shape().end()));
    Tensor<N> dx = xt::zeros<float>(x.shape());
    backward_n(dx.data(), grad_output.data(), x.data(), x.size());
    return dx;
  }

 private:
  static void forward_n(float* out, const float* x, std::size_t n);
  static void backward_n(float* dx, const float* dy, const float* x, std::size_t n);
};

}  // namespace attnlab::nn
