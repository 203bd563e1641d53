#include "tensor/sgemm_tiles.hpp"

#include <cstddef>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "tensor/transpose_kernels.hpp"
#define ATTNLAB_SGEMM_TILES 1
#endif

namespace attnlab::tensor::detail {

#if ATTNLAB_SGEMM_TILES

namespace {

using Index = std::ptrdiff_t;

// R rows × V vectors of 8 columns held in registers (R = 6, V = 2 is 12 of
// the 16 ymm registers; two more for B, one for the broadcast A). op(A)'s
// element (r, k) is at A[r * a_row + k * a_k], which covers A and Aᵀ alike.
// B points at op(B)'s panel: row k's V·8 values at B + k * ldb.
template <int R, int V>
inline void tile(int K, const float* A, Index a_row, Index a_k, const float* B, Index ldb,
                 float* C, Index ldc, bool add_c) {
  __m256 acc[R][V];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
  for (int k = 0; k < K; ++k) {
    __m256 b[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) b[v] = _mm256_loadu_ps(B + k * ldb + 8 * v);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 a = _mm256_broadcast_ss(A + r * a_row + k * a_k);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(a, b[v], acc[r][v]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    float* c = C + r * ldc;
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      // C + product, not a fused step: the product is rounded first, as BLAS's beta = 1 does
      if (add_c) acc[r][v] = _mm256_add_ps(_mm256_loadu_ps(c + 8 * v), acc[r][v]);
      _mm256_storeu_ps(c + 8 * v, acc[r][v]);
    }
  }
}

// Rows [0, M) of one panel of V vectors: whole strips of 6 rows, then the rest.
template <int V>
void panel(int M, int K, const float* A, Index a_row, Index a_k, const float* B, Index ldb,
           float* C, Index ldc, bool add_c) {
  // Strips of 6, but a rest of 1 or 2 rows joins the last strip as 4 + 3 or
  // 4 + 4: a tile of 2 rows has 4 chains of FMAs, half of what keeps both
  // FMA pipes busy through their 4-cycle latency.
  const int rest = M % 6;
  const int sixes = M / 6 - ((rest == 1 || rest == 2) && M > 6 ? 1 : 0);
  int i = 0;
  for (; i < 6 * sixes; i += 6) tile<6, V>(K, A + i * a_row, a_row, a_k, B, ldb, C + i * ldc, ldc, add_c);
  if (M - i > 6) {
    tile<4, V>(K, A + i * a_row, a_row, a_k, B, ldb, C + i * ldc, ldc, add_c);
    i += 4;
  }
  const float* a = A + i * a_row;
  float* c = C + i * ldc;
  switch (M - i) {
    case 5: tile<5, V>(K, a, a_row, a_k, B, ldb, c, ldc, add_c); break;
    case 4: tile<4, V>(K, a, a_row, a_k, B, ldb, c, ldc, add_c); break;
    case 3: tile<3, V>(K, a, a_row, a_k, B, ldb, c, ldc, add_c); break;
    case 2: tile<2, V>(K, a, a_row, a_k, B, ldb, c, ldc, add_c); break;
    case 1: tile<1, V>(K, a, a_row, a_k, B, ldb, c, ldc, add_c); break;
    default: break;
  }
}

// Columns [j, j + width) of op(B) = Bᵀ (B stored N × K) as a K × width
// panel: 8 × 8 register transposes, then the K mod 8 last values one by one.
void pack_transposed(const float* B, Index ldb, int j, int width, int K, float* out) {
  for (int c0 = 0; c0 < width; c0 += 8) {
    const float* rows = B + Index(j + c0) * ldb;
    int k = 0;
    for (; k + 8 <= K; k += 8) transpose_8x8(out + Index(k) * width + c0, width, rows + k, int(ldb));
    for (; k < K; ++k)
      for (int q = 0; q < 8; ++q) out[Index(k) * width + c0 + q] = rows[q * ldb + k];
  }
}

// One thread's packed panel: K × 16 floats at most, 128 KiB, made once per thread.
alignas(64) thread_local float packed_panel[kTilesMaxPackedK * 16];

}  // namespace

const char* sgemm_tiles_isa() { return "AVX2+FMA"; }

bool sgemm_tiles_take(bool trans_a, bool trans_b, int M, int N, int K, float alpha, float beta) {
  if (trans_a && trans_b) return false;
  if (alpha != 1.0f || (beta != 0.0f && beta != 1.0f)) return false;
  if (M <= 0 || N <= 0 || K <= 0 || N % 8 != 0) return false;
  // Aᵀ·B with more than 32 columns stays on OpenBLAS, where it measured as
  // fast or faster (bench/sgemm_tiles_bench.cpp: 256 × 64 × 256, 94 against
  // 103 GFLOP/s; its packing pays there). The rule never looks at M: a
  // product split into row shares or batch halves must route every share as
  // it routes the whole, or the shares' bits would differ from the whole's.
  if (trans_a && N > 32) return false;
  if (trans_b && K > kTilesMaxPackedK) return false;
  return true;
}

void sgemm_tiles(bool trans_a, bool trans_b, int M, int N, int K, const float* A, int lda,
                 const float* B, int ldb, float beta, float* C, int ldc) {
  const Index a_row = trans_a ? 1 : lda, a_k = trans_a ? lda : 1;
  const bool add_c = beta != 0.0f;
  // Blocks of rows whose op(A) fits in L2 (256 KiB of it; at least 48 rows),
  // so that A is read from memory once, not once per panel (timing's
  // projections at T = 8192 have 65,536 rows). A row's bits do not depend
  // on the block it falls in.
  const int block_rows = K >= 65536 / 48 ? 48 : (65536 / K) / 6 * 6;
  for (int i = 0; i < M; i += block_rows) {
    const int rows = M - i < block_rows ? M - i : block_rows;
    const float* a = A + i * a_row;
    float* c = C + Index(i) * ldc;
    // Panels of 16 columns left to right (op(B)'s panel stays in L1 while
    // every row strip passes over it), a last one of 8 when N is 8 mod 16.
    for (int j = 0; j < N; j += 16) {
      const int width = N - j >= 16 ? 16 : 8;
      const float* panel_b = B + j;
      Index ld_panel = ldb;
      if (trans_b) {
        pack_transposed(B, ldb, j, width, K, packed_panel);
        panel_b = packed_panel;
        ld_panel = width;
      }
      if (width == 16)
        panel<2>(rows, K, a, a_row, a_k, panel_b, ld_panel, c + j, ldc, add_c);
      else
        panel<1>(rows, K, a, a_row, a_k, panel_b, ld_panel, c + j, ldc, add_c);
    }
  }
}

#else  // built for an instruction set without AVX2 and FMA (-DATTNLAB_ARCH): OpenBLAS takes every product

const char* sgemm_tiles_isa() { return "none"; }
bool sgemm_tiles_take(bool, bool, int, int, int, float, float) { return false; }
void sgemm_tiles(bool, bool, int, int, int, const float*, int, const float*, int, float, float*, int) {}

#endif

}  // namespace attnlab::tensor::detail
