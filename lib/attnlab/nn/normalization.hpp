// nn.LayerNorm over xtensor, over the last dimension
// (torch/nn/modules/normalization.py). The maths is lib/kernels/layer_norm.hpp.
#pragma once

#include <vector>

#include "attnlab/nn/module.hpp"
#include "attnlab/options.hpp"

namespace attnlab::nn {

/// nn.LayerNorm(normalized_shape, eps): one normalised dimension, with the
/// affine weight and bias (elementwise_affine=True, PyTorch's default).
struct LayerNormOptions {
  explicit LayerNormOptions(int normalized_shape) : normalized_shape_(normalized_shape) {}
  ATTNLAB_ARG(int, normalized_shape);
  ATTNLAB_ARG(double, eps) = 1e-5;
};

/// weight (C) = 1, bias (C) = 0 at construction (draws nothing).
class LayerNorm : public Module {
 public:
  explicit LayerNorm(const LayerNormOptions& options, const Scope& scope = {});

  /// out (*, C); keeps each row's mean and 1/std for backward().
  template <std::size_t N>
  Tensor<N> forward(const Tensor<N>& x) {
    check_last("LayerNorm::forward", shape_of(x));
    Tensor<N> out = Tensor<N>::from_shape(x.shape());
    forward_rows(out.data(), x.data(), x.size() / std::size_t(o_.normalized_shape()));
    return out;
  }
  /// ADDS the weight and bias gradients and returns d(loss)/dx, given dy and
  /// the x of the last forward (pass it again).
  template <std::size_t N>
  Tensor<N> backward(const Tensor<N>& grad_output, const Tensor<N>& x) {
    check_last("LayerNorm::backward", shape_of(x));
    check_shape("LayerNorm::backward", "grad_output", shape_of(grad_output),
                std::vector<long>(x.shape().begin(), x.shape().end()));
    Tensor<N> dx = xt::zeros<float>(x.shape());
    backward_rows(dx.data(), grad_output.data(), x.data(), x.size() / std::size_t(o_.normalized_shape()));
    return dx;
  }

  const LayerNormOptions& options() const { return o_; }
  TensorView<1> weight() const;
  TensorView<1> bias() const;

 private:
  void check_last(const char* where, const std::vector<std::size_t>& shape) const;
  void forward_rows(float* out, const float* x, std::size_t rows);
  void backward_rows(float* dx, const float* dy, const float* x, std::size_t rows);
  LayerNormOptions o_;
  std::size_t w_, b_;
  std::vector<float> mean_, rstd_;
};

}  // namespace attnlab::nn
