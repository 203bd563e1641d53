#include "attnlab/nn/activation.hpp"

#include "nn/gelu.hpp"

namespace attnlab::nn {

void GELU::forward_n(float* out, const float* x, std::size_t n) { gelu_forward(out, x, n); }
void GELU::backward_n(float* dx, const float* dy, const float* x, std::size_t n) { gelu_backward(dx, dy, x, n); }

}  // namespace attnlab::nn
