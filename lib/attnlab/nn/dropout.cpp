#include "attnlab/nn/dropout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/dropout.hpp"

namespace attnlab::nn {

Dropout::Dropout(double p, Generator& gen) : p_(p), gen_(&gen) {
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument("Dropout: dropout probability has to be between 0 and 1, but got " +
                                std::to_string(p));
}

void Dropout::forward_n(float* out, const float* x, std::size_t n) {
  dropped_ = training_ && p_ > 0.0;
  if (!dropped_) {
    std::copy_n(x, n, out);
    return;
  }
  keep_.resize(n);
  gen_->dropout_mask(keep_.data(), n, p_);
  scale_ = random::dropout_scale(p_);
  kernels::dropout_forward(out, x, keep_.data(), scale_, n);
}

void Dropout::backward_n(float* dx, const float* dy, std::size_t n) const {
  if (!dropped_) {
    std::copy_n(dy, n, dx);
    return;
  }
  if (n != keep_.size())
    throw std::invalid_argument("Dropout::backward: grad_output has " + std::to_string(n) +
                                " elements, the last forward had " + std::to_string(keep_.size()));
  kernels::dropout_backward(dx, dy, keep_.data(), scale_, n);
}

}  // namespace attnlab::nn
