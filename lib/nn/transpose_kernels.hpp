// An 8 x 8 float transpose in AVX2 registers, for the heads' tiles: the
// backward's P'^T and dS^T (nn/head_softmax_rows.hpp) and the keys and
// values packed as kT (nn/flash_kernels.hpp). Element by element these were
// scalar stores to eight rows per value read: pack_keys_transposed alone was
// 4 % of a positions training run (perf record, -j1). Only data moves, so
// the bytes are those of the scalar loops.
#pragma once

#include <cstddef>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace attnlab::nn::detail {

#if defined(__AVX2__)
/// out[j · ld_out + r] = in[r · ld_in + j] for r, j < 8.
[[gnu::always_inline]] inline void transpose_8x8(float* out, int ld_out, const float* in, int ld_in) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + std::size_t(i) * ld_in);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  // r[c] holds column c of rows 0-3 in its low half and column c + 4 in its
  // high half, r[c + 4] the same of rows 4-7: join the halves.
  for (int c = 0; c < 4; ++c) {
    _mm256_storeu_ps(out + std::size_t(c) * ld_out, _mm256_permute2f128_ps(r[c], r[c + 4], 0x20));
    _mm256_storeu_ps(out + std::size_t(c + 4) * ld_out, _mm256_permute2f128_ps(r[c], r[c + 4], 0x31));
  }
}
#endif

}  // namespace attnlab::nn::detail
