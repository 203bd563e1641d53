#include "kernels/gelu.hpp"

#include <array>
#include <cmath>
#include <type_traits>

#include "kernels/vector/lanewise.hpp"
#include "kernels/attention/softmax_kernels.hpp"

namespace attnlab::kernels {

namespace {

// erf(z) as PyTorch's vectorised kernels take it. Floats: Abramowitz &
// Stegun 7.1.26, erf(|z|) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) e^(-z^2)
// with t = 1 / (1 + p |z|), |error| <= 1.5e-7 (Handbook of Mathematical
// Functions, p. 299), which is what ATen's AVX2 Vectorized<float>::erf
// evaluates for nn.GELU on this machine; one division and one exp instead
// of xsimd's two polynomials on both sides of |z| = 2/3 (xsimd::erf was 9 %
// of a two-block transformer row). e^(-z^2) <= 1 takes exp_nonpositive.
// Doubles: xsimd's accurate erf, as ATen's double kernel takes Sleef's.
// The float erf, also handing back its e^(-z^2): for z = x / sqrt(2) that
// is e^(-x^2 / 2) = phi(x) sqrt(2 pi), the exp GELU's derivative needs.
[[gnu::always_inline]] inline xsimd::batch<float> erf_and_gauss(xsimd::batch<float> z, xsimd::batch<float>& e) {
  using batch = xsimd::batch<float>;
  const batch a = xsimd::abs(z);
  const batch t = batch(1.0f) / xsimd::fma(batch(0.3275911f), a, batch(1.0f));
  batch r = xsimd::fma(batch(1.061405429f), t, batch(-1.453152027f));
  r = xsimd::fma(r, t, batch(1.421413741f));
  r = xsimd::fma(r, t, batch(-0.284496736f));
  r = xsimd::fma(r, t, batch(0.254829592f));
  e = detail::exp_nonpositive<float>(-(z * z));
  return xsimd::copysign(xsimd::fnma(e * t, r, batch(1.0f)), z);
}

template <class T>
[[gnu::always_inline]] inline xsimd::batch<T> erf_as_torch(xsimd::batch<T> z) {
  if constexpr (!std::is_same_v<T, float>) {
    return xsimd::erf(z);
  } else {
    xsimd::batch<float> e;
    return erf_and_gauss(z, e);
  }
}

// phi(x) sqrt(2 pi) = e^(-x^2 / 2) <= 1
template <class T>
[[gnu::always_inline]] inline xsimd::batch<T> gauss(xsimd::batch<T> x) {
  if constexpr (std::is_same_v<T, float>) return detail::exp_nonpositive<float>(T(-0.5) * x * x);
  else return xsimd::exp(T(-0.5) * x * x);
}

}  // namespace

template <class T>
void gelu_forward(T* out, const T* inp, std::size_t n) {
  const T k_alpha = static_cast<T>(M_SQRT1_2);  // 1/sqrt(2)
  detail::map_lanes(out, n, [=](auto x) { return T(0.5) * x * (T(1) + erf_as_torch<T>(x * k_alpha)); }, inp);
}

template <class T>
void gelu_backward(T* dinp, const T* dout, const T* inp, std::size_t n) {
  const T k_alpha = static_cast<T>(M_SQRT1_2);                    // 1/sqrt(2)
  const T k_beta = static_cast<T>(M_2_SQRTPI * M_SQRT1_2 * 0.5);  // 1/sqrt(2 pi)
  detail::map_lanes(
      dinp, n,
      [=](auto dx, auto dy, auto x) {
        return dx + dy * (T(0.5) * (T(1) + erf_as_torch<T>(x * k_alpha)) + x * (k_beta * gauss<T>(x)));
      },
      static_cast<const T*>(dinp), dout, inp);
}

template <class T>
void gelu_forward_keep(T* out, T* dgelu, const T* inp, std::size_t n) {
  using batch = xsimd::batch<T>;
  constexpr std::size_t W = batch::size;
  const T k_alpha = static_cast<T>(M_SQRT1_2);                    // 1/sqrt(2)
  const T k_beta = static_cast<T>(M_2_SQRTPI * M_SQRT1_2 * 0.5);  // 1/sqrt(2 pi)
  // One pass writes both: out as gelu_forward computes it, and
  // GELU'(x) = 0.5 s + x phi(x), s = 1 + erf(x / sqrt 2); floats take phi's
  // exp from the erf's own (the tail in one zero-padded register).
  auto both = [&](const T* x_at, T* d_at, T* out_at) {
    const batch x = batch::load_unaligned(x_at);
    batch s, gauss_x;
    if constexpr (std::is_same_v<T, float>) {
      s = T(1) + erf_and_gauss(x * k_alpha, gauss_x);
    } else {
      s = T(1) + erf_as_torch<T>(x * k_alpha);
      gauss_x = gauss<T>(x);
    }
    (T(0.5) * x * s).store_unaligned(out_at);
    (T(0.5) * s + x * (k_beta * gauss_x)).store_unaligned(d_at);
  };
  std::size_t i = 0;
  for (; i + W <= n; i += W) both(inp + i, dgelu + i, out + i);
  if (i == n) return;
  std::array<T, W> x{}, d, o;
  std::copy(inp + i, inp + n, x.begin());
  both(x.data(), d.data(), o.data());
  std::copy_n(d.begin(), n - i, dgelu + i);
  std::copy_n(o.begin(), n - i, out + i);
}

template <class T>
void gelu_backward_kept_overwrite(T* dinp, const T* dout, const T* dgelu, std::size_t n) {
  detail::map_lanes(dinp, n, [](auto dy, auto d) { return dy * d; }, dout, dgelu);
}

template void gelu_forward_keep<float>(float*, float*, const float*, std::size_t);
template void gelu_forward_keep<double>(double*, double*, const double*, std::size_t);
template void gelu_backward_kept_overwrite<float>(float*, const float*, const float*, std::size_t);
template void gelu_backward_kept_overwrite<double>(double*, const double*, const double*, std::size_t);
template void gelu_forward<float>(float*, const float*, std::size_t);
template void gelu_forward<double>(double*, const double*, std::size_t);
template void gelu_backward<float>(float*, const float*, const float*, std::size_t);
template void gelu_backward<double>(double*, const double*, const double*, std::size_t);

}  // namespace attnlab::kernels
