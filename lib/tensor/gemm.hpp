// Row-major general matrix product, the one door to BLAS: attnlab's own
// tiles for the shapes they take (sgemm_tiles.hpp), OpenBLAS for the rest
// (openblas.hpp: loaded by the first product that needs it).
#pragma once

namespace attnlab::tensor {

/// C (M, N) = alpha * op(A) (M, K) · op(B) (K, N) + beta * C, all row-major.
/// op(X) is X or its transpose as trans_a / trans_b say; lda/ldb/ldc are the
/// row strides of A, B, C as stored (so a column block of a wider matrix
/// can be passed with its full row stride). beta = 1 accumulates into C,
/// which is how backward passes add into gradient buffers.
/// Source: the BLAS ?gemm contract (netlib reference BLAS, cblas_sgemm).
template <class T>
void gemm(bool trans_a, bool trans_b, int M, int N, int K, T alpha, const T* A, int lda,
          const T* B, int ldb, T beta, T* C, int ldc);

/// gemm<float> on OpenBLAS whatever the shape, never attnlab's own tiles
/// (sgemm_tiles.hpp): what the benchmarks compare the tiles with, and half of
/// the sgemm peak's readings (bench/train_step_bench.cpp).
void sgemm_openblas(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
                    const float* B, int ldb, float beta, float* C, int ldc);

/// OpenBLAS's thread count (loading it if need be; openblas.hpp); it loads with
/// 1. attnlab parallelises across independent runs and row shares instead
/// (docs/xtensor.md: a second BLAS thread at our shapes is sometimes slower
/// and always burns a core spinning). Throws as openblas() does.
void set_blas_threads(int n);

}  // namespace attnlab::tensor
