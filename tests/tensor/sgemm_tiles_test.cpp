// tensor/sgemm_tiles.hpp: every output is one chain of FMAs over k in order,
// checked bit for bit against a scalar chain (std::fma), for each transpose,
// beta 0 and 1, strided operands and every row remainder of the 6-row
// strips; and the routing rule gemm<float>() follows.
#include "tensor/sgemm_tiles.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tensor/gemm.hpp"

namespace attnlab::tensor {
namespace {

struct Case {
  bool trans_a, trans_b;
  int M, N, K;
  float beta;
};

struct Operands {
  int lda, ldb, ldc;
  std::vector<float> A, B, C;
};

// Operands with row strides 3 wider than needed, so a stride mix-up shows.
Operands operands(const Case& c, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  Operands o;
  const int a_rows = c.trans_a ? c.K : c.M, a_cols = c.trans_a ? c.M : c.K;
  const int b_rows = c.trans_b ? c.N : c.K, b_cols = c.trans_b ? c.K : c.N;
  o.lda = a_cols + 3;
  o.ldb = b_cols + 3;
  o.ldc = c.N + 3;
  o.A.resize(std::size_t(a_rows) * o.lda);
  o.B.resize(std::size_t(b_rows) * o.ldb);
  o.C.resize(std::size_t(c.M) * o.ldc);
  for (auto& x : o.A) x = normal(rng);
  for (auto& x : o.B) x = normal(rng);
  for (auto& x : o.C) x = normal(rng);
  return o;
}

// The order the tiles promise: fma over k = 0..K-1 from zero, then + C.
std::vector<float> fma_chain(const Case& c, const Operands& o) {
  std::vector<float> C = o.C;
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < c.K; ++k) {
        const float a = c.trans_a ? o.A[std::size_t(k) * o.lda + i] : o.A[std::size_t(i) * o.lda + k];
        const float b = c.trans_b ? o.B[std::size_t(j) * o.ldb + k] : o.B[std::size_t(k) * o.ldb + j];
        acc = std::fma(a, b, acc);
      }
      float& out = C[std::size_t(i) * o.ldc + j];
      out = c.beta != 0.0f ? out + acc : acc;
    }
  return C;
}

// Built for an instruction set without AVX2 and FMA, the tiles take nothing.
bool tiles_built() { return detail::sgemm_tiles_take(false, false, 8, 8, 8, 1.0f, 0.0f); }

std::vector<Case> cases() {
  std::vector<Case> out;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      if (ta && tb) continue;
      for (int M : {1, 2, 5, 6, 7, 8, 13, 32, 100})
        for (int N : {8, 16, 24, 40})
          for (int K : {1, 7, 8, 33})
            for (float beta : {0.0f, 1.0f}) out.push_back({ta, tb, M, N, K, beta});
    }
  // more rows than one block of the row blocking (65,536 / K, to 6): 1,536 at K = 40
  out.push_back({false, true, 3100, 24, 40, 1.0f});
  out.push_back({true, false, 1601, 16, 40, 0.0f});
  out.push_back({false, false, 3073, 8, 2000, 1.0f});
  return out;
}

TEST(SgemmTiles, EveryOutputIsTheInOrderFmaChainBitForBit) {
  if (!tiles_built()) GTEST_SKIP() << "built without AVX2 and FMA";
  std::mt19937 rng(3);
  for (const Case& c : cases()) {
    Operands o = operands(c, rng);
    const auto want = fma_chain(c, o);
    detail::sgemm_tiles(c.trans_a, c.trans_b, c.M, c.N, c.K, o.A.data(), o.lda, o.B.data(), o.ldb, c.beta,
                        o.C.data(), o.ldc);
    ASSERT_EQ(std::memcmp(want.data(), o.C.data(), want.size() * sizeof(float)), 0)
        << "trans " << c.trans_a << c.trans_b << " " << c.M << "x" << c.N << "x" << c.K << " beta " << c.beta;
  }
}

// A row's bytes do not depend on the rows beside it in the call (no
// row_share quantum needed), and beta 0 never reads C (NaN there stays out).
TEST(SgemmTiles, ARowAloneGivesItsBytesInsideTheWholeAndBetaZeroIgnoresC) {
  if (!tiles_built()) GTEST_SKIP() << "built without AVX2 and FMA";
  std::mt19937 rng(5);
  const Case c{false, true, 250, 96, 64, 0.0f};
  Operands o = operands(c, rng);
  std::fill(o.C.begin(), o.C.end(), std::numeric_limits<float>::quiet_NaN());
  Operands whole = o;
  detail::sgemm_tiles(false, true, c.M, c.N, c.K, o.A.data(), o.lda, o.B.data(), o.ldb, 0.0f, whole.C.data(),
                      o.ldc);
  for (int i : {0, 5, 6, 131, 249}) {
    std::vector<float> row(std::size_t(c.N), std::numeric_limits<float>::quiet_NaN());
    detail::sgemm_tiles(false, true, 1, c.N, c.K, o.A.data() + std::size_t(i) * o.lda, o.lda, o.B.data(), o.ldb,
                        0.0f, row.data(), c.N);
    EXPECT_EQ(std::memcmp(row.data(), whole.C.data() + std::size_t(i) * o.ldc, row.size() * sizeof(float)), 0)
        << "row " << i;
    for (float x : row) ASSERT_TRUE(std::isfinite(x));
  }
}

TEST(SgemmTiles, TakesTheShapesItIsFastAtAndLeavesTheRestToOpenBlas) {
  if (!tiles_built()) GTEST_SKIP() << "built without AVX2 and FMA";
  using detail::sgemm_tiles_take;
  // attnlab's training shapes (projections, attention, weight gradients)
  EXPECT_TRUE(sgemm_tiles_take(false, false, 256, 32, 96, 1.0f, 0.0f));
  EXPECT_TRUE(sgemm_tiles_take(false, true, 256, 96, 32, 1.0f, 1.0f));
  EXPECT_TRUE(sgemm_tiles_take(true, false, 96, 32, 256, 1.0f, 1.0f));
  EXPECT_TRUE(sgemm_tiles_take(true, false, 256, 32, 256, 1.0f, 1.0f));
  // measured faster on OpenBLAS: an Aᵀ·B with more than 32 columns
  EXPECT_FALSE(sgemm_tiles_take(true, false, 256, 64, 256, 1.0f, 1.0f));
  EXPECT_FALSE(sgemm_tiles_take(true, false, 32, 128, 256, 1.0f, 1.0f));
  // never by M: a row share of a product routes as the whole does
  for (int M : {1, 5, 48, 97, 4096}) {
    EXPECT_TRUE(sgemm_tiles_take(false, true, M, 96, 32, 1.0f, 0.0f)) << M;
    EXPECT_TRUE(sgemm_tiles_take(true, false, M, 32, 256, 1.0f, 1.0f)) << M;
  }
  // outside the contract: scaling, both transposed, ragged N, a panel too deep
  EXPECT_FALSE(sgemm_tiles_take(false, false, 256, 32, 96, 0.5f, 0.0f));
  EXPECT_FALSE(sgemm_tiles_take(false, false, 256, 32, 96, 1.0f, 2.0f));
  EXPECT_FALSE(sgemm_tiles_take(true, true, 256, 32, 96, 1.0f, 0.0f));
  EXPECT_FALSE(sgemm_tiles_take(false, false, 256, 2, 32, 1.0f, 0.0f));
  EXPECT_FALSE(sgemm_tiles_take(false, true, 256, 32, detail::kTilesMaxPackedK + 1, 1.0f, 0.0f));
  EXPECT_FALSE(sgemm_tiles_take(false, false, 0, 32, 32, 1.0f, 0.0f));
}

// gemm<float>() routes a taken shape to the tiles (their exact order) and
// an untaken one to OpenBLAS (still the product, to float accuracy).
TEST(SgemmTiles, GemmRoutesByTheRule) {
  if (!tiles_built()) GTEST_SKIP() << "built without AVX2 and FMA";
  std::mt19937 rng(9);
  for (const Case& c : {Case{false, true, 256, 96, 32, 1.0f}, Case{false, false, 64, 34, 40, 0.0f}}) {
    Operands o = operands(c, rng);
    const auto want = fma_chain(c, o);
    gemm<float>(c.trans_a, c.trans_b, c.M, c.N, c.K, 1.0f, o.A.data(), o.lda, o.B.data(), o.ldb, c.beta, o.C.data(),
                o.ldc);
    const bool taken = detail::sgemm_tiles_take(c.trans_a, c.trans_b, c.M, c.N, c.K, 1.0f, c.beta);
    if (taken) {
      EXPECT_EQ(std::memcmp(want.data(), o.C.data(), want.size() * sizeof(float)), 0);
    } else {
      for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(o.C[i], want[i], 1e-4f * (1 + std::fabs(want[i])));
    }
    EXPECT_EQ(taken, c.N == 96);
  }
}

}  // namespace
}  // namespace attnlab::tensor
