#include "nn/gelu.hpp"

#include <cmath>

#include "nn/lanewise.hpp"

namespace attnlab::nn {

template <class T>
void gelu_forward(T* out, const T* inp, std::size_t n) {
  const T k_alpha = static_cast<T>(M_SQRT1_2);  // 1/sqrt(2)
  detail::map_lanes(out, n, [=](auto x) { return T(0.5) * x * (T(1) + xsimd::erf(x * k_alpha)); }, inp);
}

template <class T>
void gelu_backward(T* dinp, const T* dout, const T* inp, std::size_t n) {
  const T k_alpha = static_cast<T>(M_SQRT1_2);                    // 1/sqrt(2)
  const T k_beta = static_cast<T>(M_2_SQRTPI * M_SQRT1_2 * 0.5);  // 1/sqrt(2 pi)
  detail::map_lanes(
      dinp, n,
      [=](auto dx, auto dy, auto x) {
        return dx + dy * (T(0.5) * (T(1) + xsimd::erf(x * k_alpha)) + x * (k_beta * xsimd::exp(T(-0.5) * x * x)));
      },
      static_cast<const T*>(dinp), dout, inp);
}

template <class T>
void gelu_forward_keep(T* out, T* one_plus_erf, const T* inp, std::size_t n) {
  const T k_alpha = static_cast<T>(M_SQRT1_2);
  detail::map_lanes(one_plus_erf, n, [=](auto x) { return T(1) + xsimd::erf(x * k_alpha); }, inp);
  detail::map_lanes(out, n, [](auto x, auto s) { return T(0.5) * x * s; }, inp, static_cast<const T*>(one_plus_erf));
}

template <class T>
void gelu_backward_kept(T* dinp, const T* dout, const T* inp, const T* one_plus_erf, std::size_t n) {
  const T k_beta = static_cast<T>(M_2_SQRTPI * M_SQRT1_2 * 0.5);  // 1/sqrt(2 pi)
  detail::map_lanes(
      dinp, n,
      [=](auto dx, auto dy, auto x, auto s) {
        return dx + dy * (T(0.5) * s + x * (k_beta * xsimd::exp(T(-0.5) * x * x)));
      },
      static_cast<const T*>(dinp), dout, inp, one_plus_erf);
}

template void gelu_forward_keep<float>(float*, float*, const float*, std::size_t);
template void gelu_forward_keep<double>(double*, double*, const double*, std::size_t);
template void gelu_backward_kept<float>(float*, const float*, const float*, const float*, std::size_t);
template void gelu_backward_kept<double>(double*, const double*, const double*, const double*, std::size_t);
template void gelu_forward<float>(float*, const float*, std::size_t);
template void gelu_forward<double>(double*, const double*, std::size_t);
template void gelu_backward<float>(float*, const float*, const float*, std::size_t);
template void gelu_backward<double>(double*, const double*, const double*, std::size_t);

}  // namespace attnlab::nn
