// nn.Linear over xtensor: y = x W^T + b over the last dimension
// (torch/nn/modules/linear.py). The maths is lib/kernels/linear.hpp.
#pragma once

#include "attnlab/nn/module.hpp"
#include "attnlab/options.hpp"

namespace attnlab::nn {

struct LinearOptions {
  LinearOptions(int in_features, int out_features) : in_features_(in_features), out_features_(out_features) {}
  ATTNLAB_ARG(int, in_features);
  ATTNLAB_ARG(int, out_features);
  ATTNLAB_ARG(bool, bias) = true;
};

/// nn.Linear(in_features, out_features, bias): weight (out, in), bias (out),
/// initialised from `gen` as PyTorch's reset_parameters does. Throws
/// std::invalid_argument for sizes below 1.
class Linear : public Module {
 public:
  Linear(const LinearOptions& options, Generator& gen, const Scope& scope = {});

  /// y (*, out) = x (*, in) · weight^T + bias; throws std::invalid_argument
  /// naming the shape when the last dimension is not in_features.
  template <std::size_t N>
  Tensor<N> forward(const Tensor<N>& x) const {
    auto shape = x.shape();
    check_last("Linear::forward", "input", shape_of(x), o_.in_features());
    shape[N - 1] = std::size_t(o_.out_features());
    Tensor<N> y = Tensor<N>::from_shape(shape);
    forward_rows(y.data(), x.data(), x.size() / std::size_t(o_.in_features()));
    return y;
  }
  /// ADDS the parameter gradients and returns d(loss)/dx, given dy and the x
  /// of the forward pass (not kept: pass it again).
  template <std::size_t N>
  Tensor<N> backward(const Tensor<N>& grad_output, const Tensor<N>& x) {
    check_last("Linear::backward", "input", shape_of(x), o_.in_features());
    auto shape = x.shape();
    shape[N - 1] = std::size_t(o_.out_features());
    check_shape("Linear::backward", "grad_output", shape_of(grad_output), {shape.begin(), shape.end()});
    Tensor<N> dx = xt::zeros<float>(x.shape());
    backward_rows(dx.data(), grad_output.data(), x.data(), x.size() / std::size_t(o_.in_features()));
    return dx;
  }

  const LinearOptions& options() const { return o_; }
  TensorView<2> weight() const;
  TensorView<1> bias() const;  // throws std::logic_error with bias=false

 private:
  static void check_last(const char* where, const char* arg, const std::vector<std::size_t>& shape, int want);
  void forward_rows(float* y, const float* x, std::size_t rows) const;
  void backward_rows(float* dx, const float* dy, const float* x, std::size_t rows);
  LinearOptions o_;
  std::size_t w_, b_;
};

}  // namespace attnlab::nn
