// The one-register versions of the heads' softmax rows against the general
// ones (nn/head_softmax_rows.hpp): the same bytes (memcmp) for the forward's
// P and P' and the backward's dS, P'^T and dS^T, on rows with blocked keys,
// a row with every key blocked, a NaN score, and with and without dropout.
// A byte that differed would move a trained table, which is why equality
// and not a tolerance is asserted.
#include "kernels/attention/head_softmax_rows.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "random/generator.hpp"

namespace attnlab::kernels::detail {
namespace {

constexpr int kW = int(xsimd::batch<float>::size);
constexpr float kInf = std::numeric_limits<float>::infinity();

// nq rows of kW scores with row stride ld, some keys blocked (-inf), row 2
// fully blocked, one NaN in row 3; and a keep mask with about 1 in 4 dropped.
struct Rows {
  int nq, ld;
  std::vector<float> scores;
  std::vector<std::uint8_t> keep;
};

Rows make_rows(int nq, int ld, std::uint64_t seed) {
  random::Generator g(seed);
  Rows r{nq, ld, std::vector<float>(std::size_t(nq) * ld), std::vector<std::uint8_t>(std::size_t(nq) * kW)};
  std::vector<float> u(r.scores.size() + r.keep.size());
  g.uniform(u.data(), u.size(), -6.0, 6.0);
  for (std::size_t i = 0; i < r.scores.size(); ++i) r.scores[i] = u[i];
  for (int i = 0; i < nq; ++i) r.scores[std::size_t(i) * ld + (i % kW)] = -kInf;
  if (nq > 2)
    for (int j = 0; j < kW; ++j) r.scores[2 * std::size_t(ld) + j] = -kInf;
  if (nq > 3) r.scores[3 * std::size_t(ld) + 5] = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t i = 0; i < r.keep.size(); ++i) r.keep[i] = u[r.scores.size() + i] > -3.0f ? 1 : 0;
  return r;
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(HeadSoftmaxRows, TheOneRegisterForwardGivesTheGeneralBytes) {
  ASSERT_TRUE(one_vector_rows<float>(kW));
  for (bool dropped : {false, true}) {
    const Rows r = make_rows(8, kW, 11);
    std::vector<float> s0 = r.scores, s1 = r.scores, att0(8 * kW, -1.f), att1(8 * kW, -1.f);
    const std::uint8_t* keep = dropped ? r.keep.data() : nullptr;
    softmax_dropout_rows_general(s0.data(), kW, 8, kW, att0.data(), keep, 1.25f);
    softmax_dropout_rows_one_vector(s1.data(), kW, 8, att1.data(), keep, 1.25f);
    EXPECT_TRUE(same_bytes(att0, att1)) << "P, dropout " << dropped;
    EXPECT_TRUE(same_bytes(s0, s1)) << "P', dropout " << dropped;
    // what the rows must hold, not only agree on: a softmax row sums to 1, a
    // fully blocked row is 0 (row 3's NaN is compared above only: the exp's
    // clamp turns it into a weight of about 0, in both versions alike)
    float sum0 = 0;
    for (int j = 0; j < kW; ++j) sum0 += att0[j];
    EXPECT_NEAR(sum0, 1.0f, 1e-6f);
    EXPECT_EQ(att0[0], 0.0f);  // key 0 of row 0 is blocked
    for (int j = 0; j < kW; ++j) EXPECT_EQ(att0[2 * kW + j], 0.0f);
    if (dropped) {
      for (int j = 0; j < kW; ++j) EXPECT_EQ(s0[j], r.keep[j] ? att0[j] * 1.25f : 0.0f);
    }
  }
}

#if defined(__AVX2__)
TEST(HeadSoftmaxRows, TheColumnsForwardGivesTheRowsBytes) {
  for (std::uint64_t seed : {11u, 12u, 13u})
    for (bool dropped : {false, true}) {
      Rows r = make_rows(8, 8, seed);
      // row 4: equal maxima of either sign of zero, where a max tree could pick the other one
      for (int j = 0; j < 8; ++j) r.scores[4 * 8 + j] = (j % 3 == 0) ? -0.0f : (j % 3 == 1 ? 0.0f : -1.5f);
      std::vector<float> s0 = r.scores, att0(64, -1.f), att1(64, -1.f), p1(8 * 11, -3.f), s_t(8 * 9, -4.f);
      const std::uint8_t* keep = dropped ? r.keep.data() : nullptr;
      softmax_dropout_rows_general(s0.data(), 8, 8, 8, att0.data(), keep, 1.25f);
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) s_t[std::size_t(j) * 9 + i] = r.scores[std::size_t(i) * 8 + j];  // stride 9
      softmax_dropout_columns_8x8(s_t.data(), 9, p1.data(), 11, att1.data(), keep, 1.25f);
      EXPECT_TRUE(same_bytes(att0, att1)) << "P, seed " << seed << ", dropout " << dropped;
      for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(std::memcmp(&p1[std::size_t(i) * 11], &s0[std::size_t(i) * 8], 8 * sizeof(float)), 0)
            << "P' row " << i << ", seed " << seed << ", dropout " << dropped;
        for (int j = 8; j < 11; ++j) EXPECT_EQ(p1[std::size_t(i) * 11 + j], -3.f) << "past the row";
      }
      for (int j = 0; j < 8; ++j) EXPECT_EQ(att1[2 * 8 + j], 0.0f) << "the fully blocked row";
      float sum4 = 0;
      for (int j = 0; j < 8; ++j) sum4 += att1[4 * 8 + j];
      EXPECT_NEAR(sum4, 1.0f, 1e-6f);
    }
}
#endif

TEST(HeadSoftmaxRows, TheOneRegisterBackwardGivesTheGeneralBytes) {
  if (!one_vector_backward<float>(8, 8)) GTEST_SKIP() << "the one-register backward needs AVX2 floats of 8 lanes";
  for (bool dropped : {false, true}) {
    // P from the forward of blocked rows (no NaN: a gradient row of NaN is not what is compared here)
    Rows r = make_rows(8, 8, 5);
    r.scores[3 * 8 + 5] = 0.5f;
    std::vector<float> p_rows = r.scores, att(64);
    softmax_dropout_rows_general(p_rows.data(), 8, 8, 8, att.data(), nullptr, 1.0f);
    // dP' with a row stride of 11 (a wider tile than the rows)
    const int ld = 11;
    std::vector<float> dp(8 * ld);
    random::Generator g(7);
    g.uniform(dp.data(), dp.size(), -1.0, 1.0);
    std::vector<float> dp0 = dp, dp1 = dp, pt0(64, -2.f), pt1(64, -2.f), dst0(64, -2.f), dst1(64, -2.f);
    const std::uint8_t* keep = dropped ? r.keep.data() : nullptr;
    softmax_backward_rows_general(dp0.data(), ld, 8, 8, att.data(), keep, 1.25f, 0.35f, pt0.data(), dst0.data(), 8);
    softmax_backward_rows_one_vector(dp1.data(), ld, att.data(), keep, 1.25f, 0.35f, pt1.data(), dst1.data(), 8);
    EXPECT_TRUE(same_bytes(dp0, dp1)) << "dS, dropout " << dropped;
    EXPECT_TRUE(same_bytes(pt0, pt1)) << "P'^T, dropout " << dropped;
    EXPECT_TRUE(same_bytes(dst0, dst1)) << "dS^T, dropout " << dropped;
    // the transposes are transposes, and dS is 0 where P is
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        EXPECT_EQ(dst0[j * 8 + i], dp0[i * ld + j]);
        const float factor = dropped ? (r.keep[i * 8 + j] ? 1.25f : 0.0f) : 1.0f;
        EXPECT_EQ(pt0[j * 8 + i], att[i * 8 + j] * factor);
        if (att[i * 8 + j] == 0.0f) {
          EXPECT_EQ(dp0[i * ld + j], 0.0f);
        }
      }
    // the tile's columns past the rows are left alone
    for (int i = 0; i < 8; ++i)
      for (int j = 8; j < ld; ++j) EXPECT_EQ(dp1[i * ld + j], dp[i * ld + j]);
  }
}

TEST(HeadSoftmaxRows, TheDispatchTakesTheOneRegisterVersionOnlyWhereItFits) {
  EXPECT_TRUE(one_vector_rows<float>(kW));
  EXPECT_FALSE(one_vector_rows<float>(kW + 1));
  EXPECT_FALSE(one_vector_rows<float>(kW - 1));
  EXPECT_FALSE(one_vector_backward<float>(8, 7));
  EXPECT_FALSE(one_vector_backward<double>(8, 8));
  EXPECT_FALSE(one_vector_backward<float>(9, 8));
}

}  // namespace
}  // namespace attnlab::kernels::detail
