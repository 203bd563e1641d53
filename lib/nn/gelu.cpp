#include "nn/gelu.hpp"

#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>

#include <array>
#include <cmath>

namespace attnlab::nn {

namespace {

// View n contiguous values as a 1-d xtensor without copying or owning them.
template <class P>
auto view(P* ptr, std::size_t n) {
  return xt::adapt(ptr, n, xt::no_ownership(), std::array<std::size_t, 1>{n});
}

}  // namespace

template <class T>
void gelu_forward(T* out, const T* inp, std::size_t n) {
  if (n == 0) return;
  const T k_alpha = static_cast<T>(M_SQRT1_2);  // 1/sqrt(2)
  auto x = view(inp, n);
  auto y = view(out, n);
  xt::noalias(y) = T(0.5) * x * (T(1) + xt::erf(x * k_alpha));
}

template <class T>
void gelu_backward(T* dinp, const T* dout, const T* inp, std::size_t n) {
  if (n == 0) return;
  const T k_alpha = static_cast<T>(M_SQRT1_2);                  // 1/sqrt(2)
  const T k_beta = static_cast<T>(M_2_SQRTPI * M_SQRT1_2 * 0.5);  // 1/sqrt(2 pi)
  auto x = view(inp, n);
  auto dy = view(dout, n);
  auto dx = view(dinp, n);
  // noalias is safe here: each element of dx is read only at its own index
  xt::noalias(dx) += dy * (T(0.5) * (T(1) + xt::erf(x * k_alpha)) +
                           x * (k_beta * xt::exp(T(-0.5) * x * x)));
}

template void gelu_forward<float>(float*, const float*, std::size_t);
template void gelu_forward<double>(double*, const double*, std::size_t);
template void gelu_backward<float>(float*, const float*, const float*, std::size_t);
template void gelu_backward<double>(double*, const double*, const double*, std::size_t);

}  // namespace attnlab::nn
