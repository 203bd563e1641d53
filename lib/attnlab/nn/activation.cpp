#include "attnlab/nn/activation.hpp"

#include "kernels/gelu.hpp"

namespace attnlab::nn {

void GELU::forward_n(float* out, const float* x, std::size_t n) { kernels::gelu_forward(out, x, n); }
void GELU::backward_n(float* dx, const float* dy, const float* x, std::size_t n) { kernels::gelu_backward(dx, dy, x, n); }

}  // namespace attnlab::nn
