// An 8 x 8 float transpose in AVX2 registers, for the sgemm tiles' packed
// panels of a transposed B (tensor/sgemm_tiles.cpp) and the heads' tiles: the
// backward's P'^T and dS^T (nn/head_softmax_rows.hpp) and the keys and
// values packed as kT (nn/flash_kernels.hpp), and the forward's softmax of
// an 8 x 8 tile worked by columns. Element by element these were
// scalar stores to eight rows per value read: pack_keys_transposed alone was
// 4 % of a positions training run (perf record, -j1). Only data moves, so
// the bytes are those of the scalar loops.
#pragma once

#include <cstddef>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace attnlab::tensor::detail {

#if defined(__AVX2__)
/// r[j] becomes column j of the 8 x 8 block whose rows were r[0 .. 8).
[[gnu::always_inline]] inline void transpose_8x8_registers(__m256 r[8]) {
  __m256 t[8];
  #pragma GCC unroll 8
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  __m256 u[8];
  #pragma GCC unroll 8
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  // u[c] holds column c of rows 0-3 in its low half and column c + 4 in its
  // high half, u[c + 4] the same of rows 4-7: join the halves.
  #pragma GCC unroll 8
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x20);
    r[c + 4] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x31);
  }
}

/// out[j · ld_out + r] = in[r · ld_in + j] for r, j < 8.
[[gnu::always_inline]] inline void transpose_8x8(float* out, int ld_out, const float* in, int ld_in) {
  __m256 r[8];
  #pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + std::size_t(i) * ld_in);
  transpose_8x8_registers(r);
  #pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) _mm256_storeu_ps(out + std::size_t(j) * ld_out, r[j]);
}

/// out[j · ld_out + r] = in[r · ld_in + j] for r < 8, j < 4: 8 rows of 4
/// values (a head of 4, as in heads' 8 heads of d_model 32) become 4 rows
/// of 8, two 4 x 4 transposes joined.
[[gnu::always_inline]] inline void transpose_8x4(float* out, int ld_out, const float* in, int ld_in) {
  __m128 r[8];
  #pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) r[i] = _mm_loadu_ps(in + std::size_t(i) * ld_in);
  _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
  _MM_TRANSPOSE4_PS(r[4], r[5], r[6], r[7]);
  #pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) _mm256_storeu_ps(out + std::size_t(j) * ld_out, _mm256_set_m128(r[j + 4], r[j]));
}
#endif

}  // namespace attnlab::tensor::detail
