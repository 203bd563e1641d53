// The two products of a flash-attention tile, as register-blocked loops.
//
// Why not cblas here: at a head size D of 16 (timing's d_model 64 over 4
// heads) the scores q·k^T are products with K = 16, and P·v with N = 16.
// OpenBLAS packs both operands on every call and loads and stores each C
// element for only 16 multiply-adds, and zeroes C first for beta = 0: the
// tile's products ran at ~30 % of the sgemm peak, packing and memset a fifth
// of the forward (perf record at T = 512). These loops keep a block of
// outputs in registers for the whole reduction instead:
//   scores: 6 query rows × 2 registers of keys, over e < D, from the keys
//           packed once per head as kT (D, S') so 8 keys are one load;
//   mix:    6 query rows × 2 registers of y's columns, over the tile's keys,
//           reading v's rows where they are (D contiguous values each);
//   both 8 rows × 1 register when the outputs are one register wide (the
//   course's T = 8, D = 8 tiles).
// Each output is one chain of fused multiply-adds in a fixed order (e, or the
// key index), so it does not depend on the block it falls in, the tile sizes
// only through where a key tile starts, or the thread that runs it. The
// loops over the block's rows and registers are unrolled (at -O2 GCC would
// keep the accumulators in memory otherwise: 2x slower than cblas).
#pragma once

#include <xsimd/xsimd.hpp>

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "tensor/transpose_kernels.hpp"

#if defined(__FMA__)
#include <immintrin.h>
#endif

namespace attnlab::kernels::detail {

#if defined(__AVX2__)
using tensor::detail::transpose_8x4;
using tensor::detail::transpose_8x8;
using tensor::detail::transpose_8x8_registers;
#endif

/// Key columns are padded to a multiple of this (one float register, two of
/// double) so a tile of scores is whole registers; the padding scores are
/// computed from zero keys and never read.
inline constexpr int kFlashColumnPad = 8;
inline int flash_padded(int n) { return (n + kFlashColumnPad - 1) / kFlashColumnPad * kFlashColumnPad; }

/// kT[e * ld_t + j] = k[j * ld_k + e] for e < D, j < S; 0 for S <= j < ld_t.
/// Floats under AVX2 go 8 keys × 8 values at a time through a register
/// transpose (tensor/transpose_kernels.hpp), then 8 keys × 4; the rest key by key, each key's D
/// values one read, where e by e would walk every key's row D times.
template <class T>
[[gnu::noinline]] void pack_keys_transposed_any(T* kT, int ld_t, const T* k, int ld_k, int S, int D) {
  int j0 = 0, e0 = 0;  // keys below j0 and, for them, values below e0 are packed
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    const int e8 = D / 8 * 8;
    e0 = D / 4 * 4;  // then 4 values at a time: a head of 4 went key by key
    for (; j0 + 8 <= S; j0 += 8) {
      for (int e = 0; e < e8; e += 8)
        transpose_8x8(kT + std::size_t(e) * ld_t + j0, ld_t, k + std::size_t(j0) * ld_k + e, ld_k);
      for (int e = e8; e < e0; e += 4)
        transpose_8x4(kT + std::size_t(e) * ld_t + j0, ld_t, k + std::size_t(j0) * ld_k + e, ld_k);
    }
  }
#endif
  // what the transposes left (none at the course's 8 keys of 8 values: the
  // loops' own tests were 3/4 of this function's instructions there)
  if (j0 < S || e0 < D)
    for (int j = 0; j < S; ++j) {
      const T* key = k + std::size_t(j) * ld_k;
      for (int e = j < j0 ? e0 : 0; e < D; ++e) kT[std::size_t(e) * ld_t + j] = key[e];
    }
  if (S < ld_t)
    for (int e = 0; e < D; ++e)
      for (int j = S; j < ld_t; ++j) kT[std::size_t(e) * ld_t + j] = T(0);
}

/// The same for any shape; 8 keys of 4, 8, 16 or 32 floats (the course's
/// heads) inline where it is called, the transposes pack_keys_transposed_any
/// makes for them: out of line, perf annotate put a third of its samples in
/// one reload of a spilled loop bound (a 64-bit load of a 32-bit store,
/// which the core cannot forward).
template <class T>
[[gnu::always_inline]] inline void pack_keys_transposed(T* kT, int ld_t, const T* k, int ld_k, int S, int D) {
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    if (S == 8 && ld_t == 8 && (D == 8 || D == 16 || D == 32)) {
      for (int e = 0; e < D; e += 8) transpose_8x8(kT + std::size_t(e) * ld_t, ld_t, k + e, ld_k);
      return;
    }
    if (S == 8 && ld_t == 8 && D == 4) {
      transpose_8x4(kT, ld_t, k, ld_k);
      return;
    }
  }
#endif
  pack_keys_transposed_any(kT, ld_t, k, ld_k, S, D);
}

template <class T, int R, int NV>
[[gnu::always_inline]] inline void scores_block(T* s, int ld_s, const T* q, int ld_q, const T* kT, int ld_t, int D, T alpha) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  batch acc[R][NV];
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[r][v] = batch(T(0));
  for (int e = 0; e < D; ++e) {
    batch kv[NV];
    #pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) kv[v] = batch::load_unaligned(kT + std::size_t(e) * ld_t + v * W);
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const batch qb(q[std::size_t(r) * ld_q + e]);
      #pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] = xsimd::fma(qb, kv[v], acc[r][v]);
    }
  }
  // alpha is read from memory only here: held in a register across the loop
  // over e, it was the 16th, and GCC spilled a register of keys instead, one
  // store and six reloads per e (6 rows x 2 registers: load-port bound, the
  // scores at 2/3 of the mix's speed in perf at T = 512)
  const volatile T alpha_here = alpha;
  const auto a = batch::broadcast(T(alpha_here));
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) (acc[r][v] * a).store_unaligned(s + std::size_t(r) * ld_s + v * W);
}

template <class T, int R>
[[gnu::always_inline]] inline void scores_rows(T* s, int ld_s, const T* q, int ld_q, const T* kT, int ld_t, int ncols, int D, T alpha) {
  constexpr int W = int(xsimd::batch<T>::size);
  int c = 0;
  for (; c + 2 * W <= ncols; c += 2 * W) scores_block<T, R, 2>(s + c, ld_s, q, ld_q, kT + c, ld_t, D, alpha);
  for (; c < ncols; c += W) scores_block<T, R, 1>(s + c, ld_s, q, ld_q, kT + c, ld_t, D, alpha);
}

/// Calls f.template operator()<R>(r) for the blocks of R rows r, r + R, ...
/// below nq, then once for the rows left (fewer than R) with their count.
/// Eight rows when the outputs are one register wide (8 accumulators and a
/// load fit the 16 registers): the course's 8 × 8 tiles are one block then,
/// where 6 + 2 read every key or value twice. Six when two registers wide.
template <class F>
[[gnu::always_inline]] inline void for_row_blocks(int nq, bool one_register, F&& f) {
  auto blocks = [&]<int R>() __attribute__((always_inline)) {
    int r = 0;
    for (; r + R <= nq; r += R) f.template operator()<R>(r);
    switch (nq - r) {
      case 7: if constexpr (R > 7) f.template operator()<7>(r); break;
      case 6: if constexpr (R > 6) f.template operator()<6>(r); break;
      case 5: f.template operator()<5>(r); break;
      case 4: f.template operator()<4>(r); break;
      case 3: f.template operator()<3>(r); break;
      case 2: f.template operator()<2>(r); break;
      case 1: f.template operator()<1>(r); break;
      default: break;
    }
  };
  if (one_register)
    blocks.template operator()<8>();
  else
    blocks.template operator()<6>();
}

// tile_scores for any shape, in blocks of rows and registers.
template <class T>
[[gnu::noinline]] void tile_scores_blocks(T* s, int ld_s, const T* q, int ld_q, const T* kT, int ld_t, int nq,
                                          int ncols, int D, T alpha) {
  constexpr int W = int(xsimd::batch<T>::size);
  for_row_blocks(nq, ncols < 2 * W, [&]<int R>(int r) __attribute__((always_inline)) {
    scores_rows<T, R>(s + std::size_t(r) * ld_s, ld_s, q + std::size_t(r) * ld_q, ld_q, kT, ld_t, ncols, D, alpha);
  });
}

/// Whether a tile of nq rows by `cols` outputs is one block of 8 rows of one
/// register (the course's 8 x 8 head tiles, floats under AVX): tile_scores
/// and tile_mix then run that block inline where they are called, the very
/// loop tile_*_blocks would run. perf annotate of the out-of-line tile_mix at
/// positions' size put half its samples in setting up its loops (strides
/// spilled and reloaded, the row-block dispatch) and half in the 64 FMAs.
template <class T>
[[gnu::always_inline]] inline bool one_block_tile(int nq, int cols) {
  return int(xsimd::batch<T>::size) == 8 && nq == 8 && cols == 8;
}

/// s[r * ld_s + c] = alpha · sum_{e < D} q[r * ld_q + e] · kT[e * ld_t + c]
/// for r < nq, c < ncols; ncols a multiple of kFlashColumnPad.
template <class T>
[[gnu::always_inline]] inline void tile_scores(T* s, int ld_s, const T* q, int ld_q, const T* kT, int ld_t, int nq,
                                               int ncols, int D, T alpha) {
  if (one_block_tile<T>(nq, ncols)) scores_block<T, 8, 1>(s, ld_s, q, ld_q, kT, ld_t, D, alpha);
  else tile_scores_blocks(s, ld_s, q, ld_q, kT, ld_t, nq, ncols, D, alpha);
}

// Add: y's values start each chain (+=); else it starts at 0 (=), the same
// bytes as adding into a zeroed y, without the fill.
template <class T, int R, int NV, bool Add, class batch = xsimd::batch<T>>
[[gnu::always_inline]] inline void mix_block(T* y, int ld_y, const T* p, int ld_p, const T* v, int ld_v, int nk) {
  constexpr int W = int(batch::size);
  batch acc[R][NV];
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 8
    for (int u = 0; u < NV; ++u)
      acc[r][u] = Add ? batch::load_unaligned(y + std::size_t(r) * ld_y + u * W) : batch(T(0));
  for (int c = 0; c < nk; ++c) {
    batch vb[NV];
    #pragma GCC unroll 8
    for (int u = 0; u < NV; ++u) vb[u] = batch::load_unaligned(v + std::size_t(c) * ld_v + u * W);
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const batch pb(p[std::size_t(r) * ld_p + c]);
      #pragma GCC unroll 8
      for (int u = 0; u < NV; ++u) acc[r][u] = xsimd::fma(pb, vb[u], acc[r][u]);
    }
  }
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 8
    for (int u = 0; u < NV; ++u) acc[r][u].store_unaligned(y + std::size_t(r) * ld_y + u * W);
}

#if defined(__FMA__)
// One SSE register of floats or doubles, by overload.
inline __m128 sse_load(const float* x) { return _mm_loadu_ps(x); }
inline __m128d sse_load(const double* x) { return _mm_loadu_pd(x); }
inline __m128 sse_zero(const float*) { return _mm_setzero_ps(); }
inline __m128d sse_zero(const double*) { return _mm_setzero_pd(); }
inline void sse_store(float* x, __m128 a) { _mm_storeu_ps(x, a); }
inline void sse_store(double* x, __m128d a) { _mm_storeu_pd(x, a); }
inline __m128 sse_fma(float a, __m128 b, __m128 c) { return _mm_fmadd_ps(_mm_set1_ps(a), b, c); }
inline __m128d sse_fma(double a, __m128d b, __m128d c) { return _mm_fmadd_pd(_mm_set1_pd(a), b, c); }

/// mix_block for one SSE register of columns (4 floats, 2 doubles), each
/// lane the fused multiply-add chain of the scalar loop in mix_rows.
template <class T, int R, bool Add>
[[gnu::always_inline]] inline void mix_block_sse(T* y, int ld_y, const T* p, int ld_p, const T* v, int ld_v, int nk) {
  decltype(sse_load(y)) acc[R];
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r] = Add ? sse_load(y + std::size_t(r) * ld_y) : sse_zero(y);
  for (int c = 0; c < nk; ++c) {
    const auto vb = sse_load(v + std::size_t(c) * ld_v);
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] = sse_fma(p[std::size_t(r) * ld_p + c], vb, acc[r]);
  }
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r) sse_store(y + std::size_t(r) * ld_y, acc[r]);
}
#endif

template <class T, int R, bool Add>
[[gnu::always_inline]] inline void mix_rows(T* y, int ld_y, const T* p, int ld_p, const T* v, int ld_v, int nk, int D) {
  constexpr int W = int(xsimd::batch<T>::size);
  int d = 0;
  for (; d + 2 * W <= D; d += 2 * W) mix_block<T, R, 2, Add>(y + d, ld_y, p, ld_p, v + d, ld_v, nk);
  for (; d + W <= D; d += W) mix_block<T, R, 1, Add>(y + d, ld_y, p, ld_p, v + d, ld_v, nk);
  // Then half a register (SSE: 4 floats), which a head size of 4 is whole
  // (heads' 8 heads of d_model 32): one lane at a time, those columns were a
  // third of a training step. Each lane is the same chain of fused
  // multiply-adds as the scalar loop below, so the bytes are the same.
  // The SSE half is written with FMA intrinsics, not xsimd's sse4_2 batch:
  // that batch's fma is a multiply and an add, which g++ happens to
  // contract into one FMA and clang does not (tests/kernels/flash_kernels_test.cpp
  // failed in the clang sanitizer tree at every head size with a half
  // register), and this xsimd has no fma3<sse4_2> batch.
#if defined(__FMA__)
  constexpr int HW = 16 / int(sizeof(T));
  if constexpr (HW < W)
    for (; d + HW <= D; d += HW) mix_block_sse<T, R, Add>(y + d, ld_y, p, ld_p, v + d, ld_v, nk);
#endif
  for (; d < D; ++d)  // the columns past the last whole register, the same chain one lane at a time
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      T acc = Add ? y[std::size_t(r) * ld_y + d] : T(0);
      for (int c = 0; c < nk; ++c) acc = std::fma(p[std::size_t(r) * ld_p + c], v[std::size_t(c) * ld_v + d], acc);
      y[std::size_t(r) * ld_y + d] = acc;
    }
}

// tile_mix for any shape, in blocks of rows and registers.
template <class T, bool Add>
[[gnu::noinline]] void tile_mix_blocks(T* y, int ld_y, const T* p, int ld_p, const T* v, int ld_v, int nq, int nk,
                                       int D) {
  constexpr int W = int(xsimd::batch<T>::size);
  for_row_blocks(nq, D < 2 * W, [&]<int R>(int r) __attribute__((always_inline)) {
    mix_rows<T, R, Add>(y + std::size_t(r) * ld_y, ld_y, p + std::size_t(r) * ld_p, ld_p, v, ld_v, nk, D);
  });
}

/// y[r * ld_y + d] += sum_{c < nk} p[r * ld_p + c] · v[c * ld_v + d] for
/// r < nq, d < D, one fused multiply-add per key in key order. With
/// Add = false, y = the sum instead: the chain starts at 0 (the forward's y,
/// which a fill before would cost a memset call per row of D floats).
/// The 8 rows of a head's tile against the course's other head sizes (D = 4,
/// 16, 32 of d_model 32 over 8, 2 and 1 heads) run inline too, in the blocks
/// tile_mix_blocks takes for them: half a register by 8 rows; two registers by
/// 6 rows, then by 2, for each 16 columns.
template <class T, bool Add = true>
[[gnu::always_inline]] inline void tile_mix(T* y, int ld_y, const T* p, int ld_p, const T* v, int ld_v, int nq,
                                            int nk, int D) {
  if (one_block_tile<T>(nq, D)) {
    mix_block<T, 8, 1, Add>(y, ld_y, p, ld_p, v, ld_v, nk);
    return;
  }
  if constexpr (std::is_same_v<T, float> && xsimd::batch<T>::size == 8) {
#if defined(__FMA__)
    if (nq == 8 && D == 4) {
      mix_block_sse<T, 8, Add>(y, ld_y, p, ld_p, v, ld_v, nk);
      return;
    }
#endif
    if (nq == 8 && (D == 16 || D == 32)) {
      const std::size_t six = std::size_t(6) * ld_y, six_p = std::size_t(6) * ld_p;
      for (int d = 0; d < D; d += 16) mix_block<T, 6, 2, Add>(y + d, ld_y, p, ld_p, v + d, ld_v, nk);
      for (int d = 0; d < D; d += 16) mix_block<T, 2, 2, Add>(y + six + d, ld_y, p + six_p, ld_p, v + d, ld_v, nk);
      return;
    }
  }
  tile_mix_blocks<T, Add>(y, ld_y, p, ld_p, v, ld_v, nq, nk, D);
}

}  // namespace attnlab::kernels::detail
