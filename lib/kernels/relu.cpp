#include "kernels/relu.hpp"

namespace attnlab::kernels {

template <class T>
void relu_forward(T* out, const T* inp, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = inp[i] > T(0) ? inp[i] : T(0);
}

template <class T>
void relu_backward(T* dinp, const T* dout, const T* inp, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (inp[i] > T(0)) dinp[i] += dout[i];
}

template void relu_forward<float>(float*, const float*, std::size_t);
template void relu_forward<double>(double*, const double*, std::size_t);
template void relu_backward<float>(float*, const float*, const float*, std::size_t);
template void relu_backward<double>(double*, const double*, const double*, std::size_t);

}  // namespace attnlab::kernels
