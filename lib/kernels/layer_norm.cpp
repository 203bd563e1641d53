#include "kernels/layer_norm.hpp"

#include <xsimd/xsimd.hpp>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace attnlab::kernels {

namespace {

void check_dims(const char* where, int N, int C) {
  if (N < 1 || C < 1)
    throw std::invalid_argument(std::string(where) + ": need N, C >= 1, got N=" +
                                std::to_string(N) + " C=" + std::to_string(C));
}

// The row sums below run in W lanes from index 0 (xsimd, AVX2 under the
// build's -march), the lanes added by xsimd::hadd, then the last C mod W
// elements one by one. Summed one element after another, each sum was one
// chain of dependent adds (C = 32: 32 latencies of 4 cycles), and the two
// layer norms of a training step were 14 % of `positions` (perf). The order
// is fixed by C alone, so a row's result does not depend on where it sits.

// sum_c f(c) over c < C, f taking and returning batches at index c (a
// vector lambda) and, for the tail, scalars.
template <class T, class Vec, class Scalar>
inline T lane_sum(int C, Vec vec, Scalar scalar) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  batch acc(T(0));
  int c = 0;
  for (; c + W <= C; c += W) acc += vec(c);
  T sum = xsimd::hadd(acc);
  for (; c < C; ++c) sum += scalar(c);
  return sum;
}

}  // namespace

template <class T>
void layer_norm_forward(T* out, T* mean, T* rstd, const T* inp, const T* weight, const T* bias,
                        int N, int C, double eps) {
  check_dims("layer_norm_forward", N, C);
  const T eps_t = static_cast<T>(eps);
  for (int n = 0; n < N; ++n) {
    const T* x = inp + static_cast<std::size_t>(n) * C;  // (C)
    T* y = out + static_cast<std::size_t>(n) * C;        // (C)
    using batch = xsimd::batch<T>;
    // pass 1: mean
    T m = lane_sum<T>(C, [&](int c) { return batch::load_unaligned(x + c); }, [&](int c) { return x[c]; });
    m /= static_cast<T>(C);
    // pass 2: biased variance around the mean (two passes: no cancellation
    // from E[x^2] - E[x]^2)
    const batch mb(m);
    T v = lane_sum<T>(
        C,
        [&](int c) {
          const batch d = batch::load_unaligned(x + c) - mb;
          return d * d;
        },
        [&](int c) { return (x[c] - m) * (x[c] - m); });
    v /= static_cast<T>(C);
    const T s = T(1) / std::sqrt(v + eps_t);
    // pass 3: normalise, scale and shift (whole registers, then the tail)
    constexpr int W = int(batch::size);
    const batch sb(s);
    int c = 0;
    for (; c + W <= C; c += W)
      xsimd::fma((batch::load_unaligned(x + c) - mb) * sb, batch::load_unaligned(weight + c),
                 batch::load_unaligned(bias + c))
          .store_unaligned(y + c);
    for (; c < C; ++c) y[c] = std::fma((x[c] - m) * s, weight[c], bias[c]);
    mean[n] = m;
    rstd[n] = s;
  }
}

template <class T>
void layer_norm_backward(T* dinp, T* dweight, T* dbias, const T* dout, const T* mean,
                         const T* rstd, const T* inp, const T* weight, int N, int C, bool write_dinp) {
  check_dims("layer_norm_backward", N, C);
  const T inv_c = T(1) / static_cast<T>(C);
  for (int n = 0; n < N; ++n) {
    const T* x = inp + static_cast<std::size_t>(n) * C;    // (C)
    const T* dy = dout + static_cast<std::size_t>(n) * C;  // (C)
    const T m = mean[n];
    const T s = rstd[n];
    using batch = xsimd::batch<T>;
    const batch mb(m), sb(s);
    // pass 1: the two row means the input gradient needs
    T g_mean = lane_sum<T>(  // mean_c(dout * weight)
        C, [&](int c) { return batch::load_unaligned(dy + c) * batch::load_unaligned(weight + c); },
        [&](int c) { return dy[c] * weight[c]; });
    T g_xhat_mean = lane_sum<T>(  // mean_c(dout * weight * xhat)
        C,
        [&](int c) {
          const batch xhat = (batch::load_unaligned(x + c) - mb) * sb;
          return batch::load_unaligned(dy + c) * batch::load_unaligned(weight + c) * xhat;
        },
        [&](int c) { return dy[c] * weight[c] * ((x[c] - m) * s); });
    g_mean *= inv_c;
    g_xhat_mean *= inv_c;
    // pass 2: accumulate the three gradients
    T* dx = dinp ? dinp + static_cast<std::size_t>(n) * C : nullptr;
    // (whole registers, then the tail; the same operations in both)
    constexpr int W = int(batch::size);
    const batch gm(g_mean), gxm(g_xhat_mean);
    int c = 0;
    for (; c + W <= C; c += W) {
      const batch d = batch::load_unaligned(dy + c);
      const batch xhat = (batch::load_unaligned(x + c) - mb) * sb;
      if (dbias) (batch::load_unaligned(dbias + c) + d).store_unaligned(dbias + c);
      if (dweight) xsimd::fma(d, xhat, batch::load_unaligned(dweight + c)).store_unaligned(dweight + c);
      if (dx)
        xsimd::fma(sb, xsimd::fnma(xhat, gxm, xsimd::fms(d, batch::load_unaligned(weight + c), gm)),
                   write_dinp ? batch(T(0)) : batch::load_unaligned(dx + c))
            .store_unaligned(dx + c);
    }
    for (; c < C; ++c) {
      const T xhat = (x[c] - m) * s;
      if (dbias) dbias[c] += dy[c];
      if (dweight) dweight[c] = std::fma(dy[c], xhat, dweight[c]);
      if (dx)
        dx[c] = std::fma(s, std::fma(-xhat, g_xhat_mean, std::fma(dy[c], weight[c], -g_mean)), write_dinp ? T(0) : dx[c]);
    }
  }
}

void layer_norm_init(float* weight, float* bias, int C) {
  check_dims("layer_norm_init", 1, C);
  for (int c = 0; c < C; ++c) {
    weight[c] = 1.0f;
    bias[c] = 0.0f;
  }
}

template void layer_norm_forward<float>(float*, float*, float*, const float*, const float*,
                                        const float*, int, int, double);
template void layer_norm_forward<double>(double*, double*, double*, const double*, const double*,
                                         const double*, int, int, double);
template void layer_norm_backward<float>(float*, float*, float*, const float*, const float*,
                                         const float*, const float*, const float*, int, int, bool);
template void layer_norm_backward<double>(double*, double*, double*, const double*,
                                          const double*, const double*, const double*,
                                          const double*, int, int, bool);

}  // namespace attnlab::kernels
