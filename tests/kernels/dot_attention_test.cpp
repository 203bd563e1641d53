// Luong's dot attention for one query per row: a case by hand, padding that
// gets no weight, and central finite differences (double).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/dot_attention.hpp"
#include "kernels/masked_cross_entropy.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

TEST(DotAttention, TwoKeysByHand) {
  // q = (1, 0), keys (2, 0) and (0, 5): scores 2 and 0, w = (e²/(e²+1), 1/(e²+1)).
  const double q[2] = {1, 0}, k[4] = {2, 0, 0, 5};
  double c[2], w[2];
  dot_attention_forward(c, w, q, k, k, nullptr, 1, 2, 2, 2);
  const double e2 = std::exp(2.0);
  EXPECT_NEAR(w[0], e2 / (e2 + 1), 1e-15);
  EXPECT_NEAR(c[1], 5 / (e2 + 1), 1e-14);
}

TEST(DotAttention, PaddingGetsNoWeight) {
  const double q[2] = {1, 1}, k[6] = {1, 0, 0, 1, 9, 9};
  const std::uint8_t pad[3] = {0, 0, 1};
  double c[2], w[3];
  dot_attention_forward(c, w, q, k, k, pad, 1, 3, 2, 2);
  EXPECT_EQ(w[2], 0.0);
  EXPECT_NEAR(w[0], 0.5, 1e-15);
  EXPECT_NEAR(c[0], 0.5, 1e-15);
}

TEST(DotAttention, BackwardMatchesFiniteDifferences) {
  const int B = 2, S = 4, D = 3, Dv = 5;
  std::vector<double> q(B * D), k(B * S * D), v(B * S * Dv), dc(B * Dv), c(B * Dv), w(B * S), scratch(S);
  const std::vector<std::uint8_t> pad{0, 0, 0, 0, 0, 0, 1, 1};
  testing::fill_pseudo_random(q.data(), q.size(), 1);
  testing::fill_pseudo_random(k.data(), k.size(), 2);
  testing::fill_pseudo_random(v.data(), v.size(), 3);
  testing::fill_pseudo_random(dc.data(), dc.size(), 4);
  auto loss = [&] {
    dot_attention_forward(c.data(), w.data(), q.data(), k.data(), v.data(), pad.data(), B, S, D, Dv);
    return std::inner_product(c.begin(), c.end(), dc.begin(), 0.0);
  };
  loss();
  std::vector<double> dq(q.size()), dk(k.size()), dv(v.size());
  dot_attention_backward(dq.data(), dk.data(), dv.data(), scratch.data(), dc.data(), w.data(), q.data(), k.data(),
                         v.data(), B, S, D, Dv);
  testing::expect_gradient_close("query", dq.data(), testing::numerical_gradient(loss, q.data(), q.size()));
  testing::expect_gradient_close("keys", dk.data(), testing::numerical_gradient(loss, k.data(), k.size()));
  testing::expect_gradient_close("values", dv.data(), testing::numerical_gradient(loss, v.data(), v.size()));
}

TEST(MaskedCrossEntropy, IgnoredRowsCostNothing) {
  // rows 0 and 2 counted (labels 1, 0), row 1 ignored: the mean is over two rows.
  const double logits[6] = {0, 0, 5, -5, 1, 0};
  const std::int32_t labels[3] = {1, -100, 0};
  double probs[6] = {}, d[6] = {};
  int m = 0;
  const double loss = masked_cross_entropy_forward(probs, logits, labels, 3, 2, -100, &m);
  EXPECT_EQ(m, 2);
  EXPECT_NEAR(loss, (std::log(2.0) + std::log(1 + std::exp(-1.0))) / 2, 1e-15);
  masked_cross_entropy_backward(d, 1.0, probs, labels, 3, 2, -100);
  EXPECT_EQ(d[2], 0.0);
  EXPECT_EQ(d[3], 0.0);
  EXPECT_NEAR(d[0], 0.25, 1e-15);  // (0.5 - 0) / 2
}

TEST(MaskedCrossEntropy, RefusesLabelOutsideClasses) {
  const double logits[2] = {0, 0};
  const std::int32_t labels[1] = {2};
  double probs[2];
  EXPECT_THROW(masked_cross_entropy_forward(probs, logits, labels, 1, 2, 0), std::out_of_range);
}

}  // namespace
}  // namespace attnlab::kernels
