// tensor/row_share.hpp: the parts tile the rows, and a product computed a
// share of rows at a time gives the bytes of the whole product, on the
// OpenBLAS kernels attnlab runs and on its own tiles (the property the threaded flash forward's
// projections rest on). The cut at 48 is not a convention: cutting 4096 rows
// at 2048 moves last bits, which the last test shows, so the check can fail.
#include "tensor/row_share.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tensor/openblas.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::tensor {
namespace {

TEST(RowShare, PartsTileTheRowsInOrderAtMultiplesOf48) {
  for (std::size_t rows : {0u, 1u, 47u, 48u, 49u, 100u, 4096u, 65536u, 65537u})
    for (int parts : {1, 2, 3, 5, 64}) {
      std::size_t next = 0;
      for (int p = 0; p < parts; ++p) {
        const RowRange r = row_share(rows, {p, parts});
        EXPECT_EQ(r.first, next) << rows << " rows, part " << p << " of " << parts;
        EXPECT_LE(r.first, r.last);
        if (r.last != rows) {
          EXPECT_EQ(r.last % kRowShareQuantum, 0u);
        }
        // as even as whole blocks of 48 allow, the rest of a block on the last part
        EXPECT_LE(r.size(), (rows / kRowShareQuantum / parts + 1) * kRowShareQuantum + kRowShareQuantum - 1);
        // no sliver: a part is empty, has 48 rows or more, or is all of them
        if (r.size() > 0 && r.size() < kRowShareQuantum) {
          EXPECT_EQ(r.size(), rows);
        }
        next = r.last;
      }
      EXPECT_EQ(next, rows);
    }
  EXPECT_EQ(row_share(4096, {0, 2}).last, 2016u);  // 85 whole blocks of 48: 42 and 43 (+ 16 rows)
  EXPECT_EQ(row_share(97, {1, 3}).last, 48u);       // 97 = 2 blocks + 1 row in 3 parts: 0 | 48 | 49
  EXPECT_EQ(row_share(97, {2, 3}).first, 48u);
}

// C (M, N) = A (M, K) · W^T [+ C] as the projections call it, whole and by shares.
template <class T>
std::vector<T> product(const std::vector<T>& A, const std::vector<T>& W, const std::vector<T>& C0, int M, int N, int K,
                       T beta, int parts, bool quantum_cuts = true) {
  std::vector<T> C = C0;
  for (int p = 0; p < parts; ++p) {
    RowRange r = row_share(std::size_t(M), {p, parts});
    if (!quantum_cuts) r = {std::size_t(M) * p / parts, std::size_t(M) * (p + 1) / parts};
    if (r.size() == 0) continue;
    gemm<T>(false, true, int(r.size()), N, K, T(1), A.data() + r.first * K, K, W.data(), K, beta,
            C.data() + r.first * N, N);
  }
  return C;
}

template <class T>
void expect_shares_match_whole() {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  // rows: below one cut, uneven remainders, timing's B·T at 512 and a row
  // count past OpenBLAS's own outer blocking; N, K: the projections' C, 2C, 3C
  struct Shape {
    int M, N, K;
  };
  std::vector<Shape> shapes{{20000, 192, 64}};
  for (int M : {5, 47, 97, 145, 250, 4096})
    for (int N : {32, 64, 128, 192})
      for (int K : {16, 32, 64, 65}) shapes.push_back({M, N, K});
  for (const auto [M, N, K] : shapes) {
    std::vector<T> A(std::size_t(M) * K), W(std::size_t(N) * K), C0(std::size_t(M) * N);
    for (auto& x : A) x = T(normal(rng));
    for (auto& x : W) x = T(normal(rng));
    for (auto& x : C0) x = T(normal(rng));
    for (T beta : {T(0), T(1)}) {
      const auto whole = product(A, W, C0, M, N, K, beta, 1);
      for (int parts : {2, 3}) {
        const auto shared = product(A, W, C0, M, N, K, beta, parts);
        EXPECT_EQ(std::memcmp(whole.data(), shared.data(), whole.size() * sizeof(T)), 0)
            << M << "x" << N << "x" << K << " beta " << beta << " in " << parts << " parts";
      }
    }
  }
}

TEST(RowShare, SharesOfAFloatProductGiveTheWholeProductsBytes) { expect_shares_match_whole<float>(); }
TEST(RowShare, SharesOfADoubleProductGiveTheWholeProductsBytes) { expect_shares_match_whole<double>(); }

// Why the quantum: on OpenBLAS's Haswell kernels, halves cut at 2048 (not a
// multiple of their 12-row unroll) differ from the whole product. N = 190
// keeps the product on OpenBLAS (attnlab's own tiles take N a multiple of 8,
// and any cut leaves their bits alone: sgemm_tiles_test.cpp).
TEST(RowShare, CuttingOffTheQuantumMovesLastBits) {
  if (blas_core() != "Haswell") GTEST_SKIP() << "kernels " << blas_core() << ", not Haswell";
  const int M = 4096, N = 190, K = 64;
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<float> A(std::size_t(M) * K), W(std::size_t(N) * K), C0(std::size_t(M) * N, 0.0f);
  for (auto& x : A) x = normal(rng);
  for (auto& x : W) x = normal(rng);
  const auto whole = product(A, W, C0, M, N, K, 0.0f, 1);
  const auto halves = product(A, W, C0, M, N, K, 0.0f, 2, /*quantum_cuts=*/false);
  EXPECT_NE(std::memcmp(whole.data(), halves.data(), whole.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace attnlab::tensor
