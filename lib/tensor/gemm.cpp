#include "tensor/gemm.hpp"

#include "tensor/openblas.hpp"
#include "tensor/sgemm_tiles.hpp"

namespace attnlab::tensor {

namespace {

// CBLAS's enum values (cblas.h: CblasRowMajor, CblasNoTrans, CblasTrans),
// passed as ints since the library is loaded, not linked.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
int op(bool trans) { return trans ? kTrans : kNoTrans; }

}  // namespace

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
  openblas().sgemm(kRowMajor, op(trans_a), op(trans_b), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <>
void gemm<double>(bool trans_a, bool trans_b, int M, int N, int K, double alpha, const double* A,
                  int lda, const double* B, int ldb, double beta, double* C, int ldc) {
  openblas().dgemm(kRowMajor, op(trans_a), op(trans_b), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void set_blas_threads(int n) { openblas().set_num_threads(n); }

}  // namespace attnlab::tensor
