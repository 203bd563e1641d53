// attnlab's own float product for the shapes it trains at.
//
// OpenBLAS reaches the sgemm peak on large products, but attnlab's are small
// (a batch of 256 rows against 32–256 columns, K of 32–256; an LSTM step is
// 32 × 256 × 64) and there it spends 10–25 % of each call packing both
// operands and in its driver: measured 80–97 GFLOP/s per shape on this
// project's machine against a peak of ~108. These tiles pack nothing but a
// transposed B and keep 6 × 16 outputs in registers, 107–116 GFLOP/s at the
// same shapes (bench/sgemm_tiles_bench.cpp).
//
// Every output is one chain of fused multiply-adds over k in order 0..K-1,
// started from zero, then added to C when beta is 1. So a row's bytes do not
// depend on which other rows share the call (row_share.hpp's cuts move
// nothing), nor on the machine, as long as it runs these x86-64-v3 kernels.
#pragma once

namespace attnlab::tensor::detail {

/// The products sgemm_tiles() takes: alpha 1, beta 0 or 1, op(A) and op(B)
/// not both transposed, N a multiple of 8, every size positive; with B
/// transposed, K at most kTilesMaxPackedK (the packed panel's size); with A
/// transposed, N at most 32 (beyond, OpenBLAS measured as fast or faster).
/// Never a condition on M, so row shares route as the whole product does.
inline constexpr int kTilesMaxPackedK = 2048;
bool sgemm_tiles_take(bool trans_a, bool trans_b, int M, int N, int K, float alpha, float beta);

/// The tiles' instruction set as `attnlab --version` names it: "AVX2+FMA",
/// or "none" when built for a set without them (OpenBLAS takes everything).
const char* sgemm_tiles_isa();

/// C (M, N) = op(A) (M, K) · op(B) (K, N) + beta · C, row-major with row
/// strides lda, ldb, ldc as in the BLAS contract (gemm.hpp). Only for
/// products sgemm_tiles_take() accepts; gemm<float>() routes the rest to
/// cblas_sgemm. Allocates nothing (the packed panel is a per-thread array).
/// Units: elements (floats), not bytes. Errors: none raised and nothing
/// checked; a product sgemm_tiles_take() refuses is a caller's bug (gemm<float>
/// never passes one). Source: the BLAS ?gemm contract (netlib reference BLAS,
/// cblas_sgemm); the register-blocked micro-tile of Goto & van de Geijn,
/// "Anatomy of High-Performance Matrix Multiplication" (ACM TOMS 34(3), 2008).
void sgemm_tiles(bool trans_a, bool trans_b, int M, int N, int K, const float* A, int lda,
                 const float* B, int ldb, float beta, float* C, int ldc);

}  // namespace attnlab::tensor::detail
