// The softmax of one row of attention scores, and its backward, on whole
// registers (xsimd, AVX2 under the build's -march): the kernels beneath the
// flash forward (nn/flash_attention.cpp) and the tiled heads
// (nn/mha_heads_tiled.cpp). Every element takes the same instructions
// wherever the row starts or ends (a tail goes through one padded
// register), and every sum runs in fixed lanes, so a weight depends on the
// row's values alone, not on the buffer's address or the thread.
#pragma once

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace attnlab::kernels::detail {

// max_j row[j] (n >= 1). Four registers of W lanes side by side: a single
// one would wait on each vmaxps's latency, and this loop and the next were
// a quarter of the kernel's time with one.
template <class T>
inline T row_max(const T* row, int n) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  T m = -std::numeric_limits<T>::infinity();
  int j = 0;
  if (n >= 4 * W) {
    batch a0 = batch::load_unaligned(row), a1 = batch::load_unaligned(row + W),
          a2 = batch::load_unaligned(row + 2 * W), a3 = batch::load_unaligned(row + 3 * W);
    for (j = 4 * W; j + 4 * W <= n; j += 4 * W) {
      a0 = xsimd::max(a0, batch::load_unaligned(row + j));
      a1 = xsimd::max(a1, batch::load_unaligned(row + j + W));
      a2 = xsimd::max(a2, batch::load_unaligned(row + j + 2 * W));
      a3 = xsimd::max(a3, batch::load_unaligned(row + j + 3 * W));
    }
    std::array<T, batch::size> lanes;
    xsimd::max(xsimd::max(a0, a1), xsimd::max(a2, a3)).store_unaligned(lanes.data());
    for (T x : lanes) m = x > m ? x : m;
  }
  for (; j < n; ++j) m = row[j] > m ? row[j] : m;
  return m;
}

// e^x for x <= 0, and 0 for x = -inf (a blocked score less the row's
// maximum). Cephes' expf (Moshier, cephes/single/expf.c): x = n ln 2 + r with
// |r| <= ln 2 / 2 in two steps, a degree-6 polynomial for e^r, 2^n put in
// the exponent bits; within 2 ulp, like xsimd::exp, in fewer instructions
// (no overflow branch, as x <= 0, and 2^n needs no ldexp since n >= -126
// once x is clamped). Below -87.34 (e^x < 2^-126) it gives 0, where the true
// value is subnormal: a weight that small is 0 next to the row's largest, 1.
// Doubles take xsimd::exp, on x clamped to its minlog: xsimd converts
// x / ln 2 to an integer before it selects 0 for x <= minlog, and that
// conversion of -inf (a blocked score) is undefined behaviour (UBSan stops
// on it). Clamped, the result is the same bytes: 0 at and below minlog.
template <class T>
[[gnu::always_inline]] inline xsimd::batch<T> exp_nonpositive(xsimd::batch<T> x) {
  using batch = xsimd::batch<T>;
  if constexpr (!std::is_same_v<T, float>) {
    return xsimd::exp(xsimd::max(x, xsimd::constants::minlog<batch>()));
  } else {
    const batch lowest(-87.33654f);  // ln 2^-126
    const batch xc = xsimd::max(x, lowest);
    const batch n = xsimd::nearbyint(xc * batch(1.44269504088896341f));
    batch r = xsimd::fnma(n, batch(0.693359375f), xc);
    r = xsimd::fnma(n, batch(-2.12194440e-4f), r);
    batch p = xsimd::fma(batch(1.9875691500e-4f), r, batch(1.3981999507e-3f));
    p = xsimd::fma(p, r, batch(8.3334519073e-3f));
    p = xsimd::fma(p, r, batch(4.1665795894e-2f));
    p = xsimd::fma(p, r, batch(1.6666665459e-1f));
    p = xsimd::fma(p, r, batch(5.0000001201e-1f));
    p = xsimd::fma(p, r * r, r + batch(1.0f));
    using ints = xsimd::batch<std::int32_t>;
    const batch two_n = xsimd::bitwise_cast<batch>((xsimd::to_int(n) + ints(127)) << 23);
    return xsimd::select(x < lowest, batch(0.0f), p * two_n);
  }
}

// row[j] = exp(row[j] - m), returning their sum; exp(-inf) = 0 for blocked
// scores. Every element takes exp_nonpositive (the tail in one zero-padded
// register, as map_lanes does), so a weight does not depend on where the
// tile's edge falls; two sums side by side, for the adds' latency.
template <class T>
inline T exp_and_sum(T* row, int n, T m) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  const batch mb(m);
  batch s0(T(0)), s1(T(0));
  int j = 0;
  for (; j + 2 * W <= n; j += 2 * W) {
    const batch e0 = exp_nonpositive<T>(batch::load_unaligned(row + j) - mb);
    const batch e1 = exp_nonpositive<T>(batch::load_unaligned(row + j + W) - mb);
    e0.store_unaligned(row + j);
    e1.store_unaligned(row + j + W);
    s0 += e0;
    s1 += e1;
  }
  for (; j + W <= n; j += W) {
    const batch e = exp_nonpositive<T>(batch::load_unaligned(row + j) - mb);
    e.store_unaligned(row + j);
    s0 += e;
  }
  T sum = xsimd::hadd(s0 + s1);
  if (j < n) {
    std::array<T, batch::size> padded;
    padded.fill(-std::numeric_limits<T>::infinity());  // exp(-inf) = 0 beyond n
    std::copy_n(row + j, n - j, padded.data());
    exp_nonpositive<T>(batch::load_unaligned(padded.data()) - mb).store_unaligned(padded.data());
    for (int c = 0; c < n - j; ++c) {
      row[j + c] = padded[c];
      sum += padded[c];
    }
  }
  return sum;
}

// row[j] <- row[j] * factor for j < n (a vector loop, then the tail).
template <class T>
inline void scale_row(T* row, int n, T factor) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  const batch f(factor);
  int j = 0;
  for (; j + W <= n; j += W) (batch::load_unaligned(row + j) * f).store_unaligned(row + j);
  for (; j < n; ++j) row[j] *= factor;
}

// The gradient of a softmax row, scaled: given its output p (n) and the
// gradient g (n) with respect to p, g[j] <- alpha · p[j] · (g[j] − sum_k p[k] g[k]),
// and exactly 0 where p[j] = 0 (a blocked key, or a row with every key
// blocked), so no NaN can enter. The sum runs in W lanes from index 0, the
// lanes added by xsimd::hadd, then the tail one by one.
template <class T>
inline void softmax_backward_row(T* g, const T* p, int n, T alpha) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  batch acc(T(0));
  int j = 0;
  for (; j + W <= n; j += W) acc = xsimd::fma(batch::load_unaligned(p + j), batch::load_unaligned(g + j), acc);
  T dot = xsimd::hadd(acc);
  for (int t = j; t < n; ++t) dot += p[t] * g[t];
  const batch db(dot), ab(alpha), zero(T(0));
  for (j = 0; j + W <= n; j += W) {
    const batch pj = batch::load_unaligned(p + j);
    const batch r = pj * (batch::load_unaligned(g + j) - db) * ab;
    xsimd::select(pj == zero, zero, r).store_unaligned(g + j);
  }
  for (; j < n; ++j) g[j] = p[j] == T(0) ? T(0) : p[j] * (g[j] - dot) * alpha;
}

}  // namespace attnlab::kernels::detail
