#include "attnlab/nn/normalization.hpp"

#include <stdexcept>
#include <string>

#include "kernels/layer_norm.hpp"

namespace attnlab::nn {

LayerNorm::LayerNorm(const LayerNormOptions& o, const Scope& scope) : Module(scope), o_(o) {
  if (o.normalized_shape() < 1)
    throw std::invalid_argument("LayerNorm: normalized_shape must be >= 1, got " +
                                std::to_string(o.normalized_shape()));
  w_ = register_parameter("weight", {o.normalized_shape()});
  b_ = register_parameter("bias", {o.normalized_shape()});
  kernels::layer_norm_init(value(w_), value(b_), o.normalized_shape());
}

void LayerNorm::check_last(const char* where, const std::vector<std::size_t>& shape) const {
  std::vector<long> expected(shape.size(), -1);
  expected.back() = o_.normalized_shape();
  check_shape(where, "input", shape, expected);
}

void LayerNorm::forward_rows(float* out, const float* x, std::size_t rows) {
  mean_.resize(rows);
  rstd_.resize(rows);
  if (rows == 0) return;
  kernels::layer_norm_forward(out, mean_.data(), rstd_.data(), x, static_cast<const float*>(value(w_)),
                     static_cast<const float*>(value(b_)), int(rows), o_.normalized_shape(), o_.eps());
}

void LayerNorm::backward_rows(float* dx, const float* dy, const float* x, std::size_t rows) {
  if (rows != mean_.size())
    throw std::logic_error("LayerNorm::backward: the input has " + std::to_string(rows) +
                           " rows, the last forward had " + std::to_string(mean_.size()));
  if (rows == 0) return;
  kernels::layer_norm_backward(dx, grad(w_), grad(b_), dy, mean_.data(), rstd_.data(), x, static_cast<const float*>(value(w_)),
                      int(rows), o_.normalized_shape());
}

TensorView<1> LayerNorm::weight() const { return view<1>(value(w_), {std::size_t(o_.normalized_shape())}); }
TensorView<1> LayerNorm::bias() const { return view<1>(value(b_), {std::size_t(o_.normalized_shape())}); }

}  // namespace attnlab::nn
