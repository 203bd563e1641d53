#include "kernels/dropout.hpp"

namespace attnlab::kernels {

template <class T>
void dropout_forward(T* out, const T* inp, const std::uint8_t* keep, T scale, std::size_t n) {
  // multiply by the noise value (scale or 0) rather than writing 0: x * 0 keeps
  // the sign of x (-0.0) as PyTorch's input * noise does
  for (std::size_t i = 0; i < n; ++i) out[i] = inp[i] * (keep[i] ? scale : T(0));
}

template <class T>
void dropout_backward(T* dinp, const T* dout, const std::uint8_t* keep, T scale, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dinp[i] += dout[i] * (keep[i] ? scale : T(0));
}

template void dropout_forward<float>(float*, const float*, const std::uint8_t*, float,
                                     std::size_t);
template void dropout_forward<double>(double*, const double*, const std::uint8_t*, double,
                                      std::size_t);
template void dropout_backward<float>(float*, const float*, const std::uint8_t*, float,
                                      std::size_t);
template void dropout_backward<double>(double*, const double*, const std::uint8_t*, double,
                                       std::size_t);

}  // namespace attnlab::kernels
