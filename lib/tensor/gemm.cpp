#include "tensor/gemm.hpp"

#include <cblas.h>

#include "tensor/blas_core.hpp"
#include "tensor/sgemm_tiles.hpp"

namespace attnlab::tensor {

template <>
void gemm<float>(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A,
                 int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  // attnlab's shapes go to its own tiles (sgemm_tiles.hpp: faster there, and
  // a row's bits independent of the call); the rest to OpenBLAS
  if (detail::sgemm_tiles_take(trans_a, trans_b, M, N, K, alpha, beta)) {
    detail::sgemm_tiles(trans_a, trans_b, M, N, K, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  sgemm_openblas(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void sgemm_openblas(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
                    const float* B, int ldb, float beta, float* C, int ldc) {
  blas_core();  // the kernels are chosen before the first product (one load after that)
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <>
void gemm<double>(bool trans_a, bool trans_b, int M, int N, int K, double alpha, const double* A,
                  int lda, const double* B, int ldb, double beta, double* C, int ldc) {
  blas_core();
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void set_blas_threads(int n) { openblas_set_num_threads(n); }

}  // namespace attnlab::tensor
