// The softmax, dropout and their backward over one block of a head's score
// rows (nn/mha_heads_tiled.cpp's passes 2-3), in two versions that give the
// same bytes:
//   *_general     row by row through nn/softmax_kernels.hpp, any S;
//   *_one_vector  S equal to one register's lanes (the course's T = 8 with
//                 AVX2 floats): each row is loaded once and stays in a
//                 register through max, exp, sum, scale and the dropout
//                 mask, and the backward's two transposed tiles are written
//                 by an 8 × 8 register transpose (and the forward's
//                 softmax_dropout_columns_8x8, the same rows given by
//                 columns). perf of a 2-block
//                 rnn_vs_attention row put the general version's scalar
//                 dropout loops and column stores at 5 % of the step and its
//                 one-register-long row loops at another 4 %.
// Each element takes the same operations in both (the maximum ignores NaN as
// the scalar loop does; a sum of one register is xsimd::hadd of it), so the
// dispatching functions pick one by shape alone and a row trains to the same
// bytes either way; tests/kernels/head_softmax_rows_test.cpp holds them equal
// with memcmp on masked, dropped and fully blocked rows.
#pragma once

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "kernels/attention/softmax_kernels.hpp"
#include "tensor/transpose_kernels.hpp"

namespace attnlab::kernels::detail {

#if defined(__AVX2__)
using tensor::detail::transpose_8x4;
using tensor::detail::transpose_8x8;
using tensor::detail::transpose_8x8_registers;
#endif

/// Forward over nq rows of scores (row stride ld_s, S valid keys, already
/// masked with -inf): P = softmax(row), written to att (nq rows of S,
/// contiguous); then the row becomes P' = P · keep · scale (keep: nq rows of
/// S bytes, or null for no dropout). A row whose every key is blocked gives
/// P = P' = 0.
template <class T>
inline void softmax_dropout_rows_general(T* scores, int ld_s, int nq, int S, T* att, const std::uint8_t* keep,
                                         T scale) {
  for (int r = 0; r < nq; ++r) {
    T* row = scores + std::size_t(r) * ld_s;
    const T m = row_max(row, S);
    if (m == -std::numeric_limits<T>::infinity()) {
      std::fill_n(row, S, T(0));
    } else {
      const T sum = exp_and_sum(row, S, m);
      scale_row(row, S, T(1) / sum);
    }
    std::copy_n(row, S, att + std::size_t(r) * S);
    if (keep) {
      const std::uint8_t* k = keep + std::size_t(r) * S;
      for (int j = 0; j < S; ++j) row[j] = k[j] ? row[j] * scale : T(0);
    }
  }
}

/// keep[0 .. W) as a lane mask (true where the byte is not 0).
template <class T>
[[gnu::always_inline]] inline xsimd::batch_bool<T> keep_lanes(const std::uint8_t* keep) {
  using batch = xsimd::batch<T>;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float> && batch::size == 8) {
    // 8 bytes widened to 8 ints, each compared with 0 (bytes are unsigned)
    const __m256i k = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(keep)));
    return xsimd::batch_bool<float>(_mm256_castsi256_ps(_mm256_cmpgt_epi32(k, _mm256_setzero_si256())));
  }
#endif
  alignas(64) T lanes[batch::size];
  for (std::size_t j = 0; j < batch::size; ++j) lanes[j] = keep[j] ? T(1) : T(0);
  return batch::load_aligned(lanes) != batch(T(0));
}

template <class T>
inline bool one_vector_rows(int S) {
  return S == int(xsimd::batch<T>::size);
}

/// softmax_dropout_rows_general for S = one register (one_vector_rows(S)).
template <class T>
inline void softmax_dropout_rows_one_vector(T* scores, int ld_s, int nq, T* att, const std::uint8_t* keep,
                                            T scale) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  const batch minus_inf(-std::numeric_limits<T>::infinity()), zero(T(0)), scale_b(scale);
  for (int r = 0; r < nq; ++r) {
    T* row = scores + std::size_t(r) * ld_s;
    const batch x = batch::load_unaligned(row);
    // row_max's `x > m ? x : m` passes over NaN: so does a max of x with NaN as -inf
    alignas(64) T lanes[W];
    xsimd::select(x == x, x, minus_inf).store_aligned(lanes);
    T m = lanes[0];
    for (int j = 1; j < W; ++j) m = lanes[j] > m ? lanes[j] : m;
    batch p = zero;
    if (m != -std::numeric_limits<T>::infinity()) {
      const batch e = exp_nonpositive<T>(x - batch(m));
      p = e * batch(T(1) / xsimd::hadd(e));
    }
    p.store_unaligned(att + std::size_t(r) * W);
    if (keep) p = xsimd::select(keep_lanes<T>(keep + std::size_t(r) * W), p * scale_b, zero);
    p.store_unaligned(row);
  }
}

#if defined(__AVX2__)
/// softmax_dropout_rows_one_vector for a block of 8 rows of 8 keys given by
/// its columns, as the forward's fused tile computes it (nn/mha_heads_tiled.cpp):
/// sT[j · ld_sT + r] is row r's score of key j, masked already. Writes P's
/// rows to att (8 × 8, contiguous) and P''s to p (row stride ld_p; p may be
/// sT, which is read first). Each row's maximum, sum and scale become
/// lane-wise operations across the 8 column registers, where a row in one
/// register needs a scalar loop for its maximum, two horizontal adds and a
/// division: the one-register rows were the largest of the heads' kernels
/// in a positions run (8.8 %, perf record -j1). The order is the row
/// version's: the maximum key by key with NaN passed over; the sum in
/// xsimd::hadd's tree for AVX floats, ((x0 + x4) + (x1 + x5)) + ((x2 + x6) + (x3 + x7));
/// 1 / sum, then a multiply. So the bytes are the same, which
/// tests/kernels/head_softmax_rows_test.cpp asserts with memcmp.
inline void softmax_dropout_columns_8x8(const float* sT, int ld_sT, float* p, int ld_p, float* att,
                                        const std::uint8_t* keep, float scale) {
  using batch = xsimd::batch<float>;
  static_assert(batch::size == 8);
  const batch minus_inf(-std::numeric_limits<float>::infinity()), zero(0.0f);
  batch x[8];
  #pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) x[j] = batch::load_unaligned(sT + std::size_t(j) * ld_sT);
  batch m = xsimd::select(x[0] == x[0], x[0], minus_inf);
  #pragma GCC unroll 8
  for (int j = 1; j < 8; ++j) {
    const batch c = xsimd::select(x[j] == x[j], x[j], minus_inf);
    m = xsimd::select(c > m, c, m);
  }
  __m256 e[8];
  #pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) e[j] = exp_nonpositive<float>(x[j] - m);
  const batch sum = (batch(e[0]) + batch(e[4]) + (batch(e[1]) + batch(e[5]))) +
                    (batch(e[2]) + batch(e[6]) + (batch(e[3]) + batch(e[7])));
  const batch inv = batch(1.0f) / sum;
  const xsimd::batch_bool<float> blocked = m == minus_inf;  // rows with every key blocked give 0
  #pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) e[j] = xsimd::select(blocked, zero, batch(e[j]) * inv);
  transpose_8x8_registers(e);  // e[r] is now row r of P
  const batch scale_b(scale);
  #pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    batch row(e[r]);
    row.store_unaligned(att + std::size_t(r) * 8);
    if (keep) row = xsimd::select(keep_lanes<float>(keep + std::size_t(r) * 8), row * scale_b, zero);
    row.store_unaligned(p + std::size_t(r) * ld_p);
  }
}
#endif

/// The forward's rows, by whichever version fits S.
template <class T>
inline void softmax_dropout_rows(T* scores, int ld_s, int nq, int S, T* att, const std::uint8_t* keep, T scale) {
  if (one_vector_rows<T>(S)) softmax_dropout_rows_one_vector(scores, ld_s, nq, att, keep, scale);
  else softmax_dropout_rows_general(scores, ld_s, nq, S, att, keep, scale);
}

/// Backward over nq rows: dp (row stride ld_s) holds dP' = dy · v^T on
/// entry and dS = P ∘ (dP − rowsum(P ∘ dP)) · alpha on return, with
/// dP = dP' · keep · scale; att holds P (nq rows of S, contiguous), keep as
/// the forward's. Writes P'^T to p_t and dS^T to ds_t, both (S, ld_t): element
/// (j, r) at j · ld_t + r.
template <class T>
inline void softmax_backward_rows_general(T* dp, int ld_s, int nq, int S, const T* att, const std::uint8_t* keep,
                                          T scale, T alpha, T* p_t, T* ds_t, int ld_t) {
  for (int r = 0; r < nq; ++r) {
    const T* p = att + std::size_t(r) * S;
    T* g = dp + std::size_t(r) * ld_s;
    if (keep) {
      const std::uint8_t* k = keep + std::size_t(r) * S;
      for (int j = 0; j < S; ++j) {
        const T factor = k[j] ? scale : T(0);
        p_t[std::size_t(j) * ld_t + r] = p[j] * factor;
        g[j] *= factor;
      }
    } else {
      for (int j = 0; j < S; ++j) p_t[std::size_t(j) * ld_t + r] = p[j];
    }
    softmax_backward_row(g, p, S, alpha);
    for (int j = 0; j < S; ++j) ds_t[std::size_t(j) * ld_t + r] = g[j];
  }
}


/// Whether softmax_backward_rows takes the one-register version: float rows
/// of 8 keys in blocks of 8 rows, under AVX2.
template <class T>
inline bool one_vector_backward(int S, int nq) {
#if defined(__AVX2__)
  return std::is_same_v<T, float> && S == 8 && nq == 8 && one_vector_rows<T>(S);
#else
  (void)S, (void)nq;
  return false;
#endif
}

/// softmax_backward_rows_general for float, S = nq = 8 (one_vector_backward).
inline void softmax_backward_rows_one_vector(float* dp, int ld_s, const float* att, const std::uint8_t* keep,
                                             float scale, float alpha, float* p_t, float* ds_t, int ld_t) {
#if defined(__AVX2__)
  using batch = xsimd::batch<float>;
  alignas(64) float dropped[8 * 8];  // P' rows, transposed into p_t below
  const batch zero(0.0f), alpha_b(alpha), scale_b(scale);
  #pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    const batch p = batch::load_unaligned(att + std::size_t(r) * 8);
    batch g = batch::load_unaligned(dp + std::size_t(r) * ld_s);
    if (keep) {
      const batch factor = xsimd::select(keep_lanes<float>(keep + std::size_t(r) * 8), scale_b, zero);
      (p * factor).store_aligned(dropped + r * 8);
      g = g * factor;
    } else {
      p.store_aligned(dropped + r * 8);
    }
    // softmax_backward_row on one register: the dot in lanes, then hadd
    const batch db(xsimd::hadd(xsimd::fma(p, g, zero)));
    xsimd::select(p == zero, zero, p * (g - db) * alpha_b).store_unaligned(dp + std::size_t(r) * ld_s);
  }
  transpose_8x8(p_t, ld_t, dropped, 8);
  transpose_8x8(ds_t, ld_t, dp, ld_s);
#else
  (void)dp, (void)ld_s, (void)att, (void)keep, (void)scale, (void)alpha, (void)p_t, (void)ds_t, (void)ld_t;
#endif
}

/// The backward's rows, by whichever version fits S and nq.
template <class T>
inline void softmax_backward_rows(T* dp, int ld_s, int nq, int S, const T* att, const std::uint8_t* keep, T scale,
                                  T alpha, T* p_t, T* ds_t, int ld_t) {
  if constexpr (std::is_same_v<T, float>) {
    if (one_vector_backward<T>(S, nq)) {
      softmax_backward_rows_one_vector(dp, ld_s, att, keep, scale, alpha, p_t, ds_t, ld_t);
      return;
    }
  }
  softmax_backward_rows_general(dp, ld_s, nq, S, att, keep, scale, alpha, p_t, ds_t, ld_t);
}

}  // namespace attnlab::kernels::detail
