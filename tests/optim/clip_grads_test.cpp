// clip_grads, the training loop's clipping, against clip_grad_norm (itself
// held to PyTorch by optim_parity_test): the same bytes whether or not the
// norm is near max_norm, and the quick path taken only where it is sure.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "optim/clip_grad_norm.hpp"

namespace attnlab::optim {
namespace {

// n gradients of norm `norm` (as clip_grad_norm measures it, to a few ulps).
std::vector<float> grads_of_norm(std::size_t n, double norm, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> g(n);
  for (auto& x : g) x = dist(gen);
  std::vector<float> probe = g;
  const double now = n == 0 ? 0.0 : clip_grad_norm(probe.data(), n, std::numeric_limits<double>::infinity());
  if (now > 0)
    for (auto& x : g) x = static_cast<float>(x * (norm / now));
  return g;
}

void expect_same_as_clip_grad_norm(std::vector<float> g, double max_norm) {
  std::vector<float> want = g;
  clip_grad_norm(want.data(), want.size(), max_norm);
  clip_grads(g.data(), g.size(), max_norm);
  ASSERT_EQ(g.size(), want.size());
  if (g.empty()) return;  // memcmp must not see an empty vector's null data()
  EXPECT_EQ(0, std::memcmp(g.data(), want.data(), g.size() * sizeof(float)));
}

TEST(ClipGrads, SameBytesAsClipGradNormAtEveryRatioToMaxNorm) {
  int cases = 0;
  for (std::size_t n : {0ul, 1ul, 7ul, 8ul, 9ul, 1000ul, 100003ul})
    for (double max_norm : {1.0, 0.25, 3e-7, 1e6})
      for (double ratio : {0.0, 0.5, 0.999, 0.9999, 0.99999, 0.999999, 0.9999999, 1.0, 1.0000001, 1.001, 2.0, 1e6}) {
        SCOPED_TRACE(testing::Message() << "n " << n << " max_norm " << max_norm << " ratio " << ratio);
        expect_same_as_clip_grad_norm(grads_of_norm(n, ratio * max_norm, static_cast<unsigned>(n + 7)), max_norm);
        ++cases;
      }
  EXPECT_EQ(cases, 7 * 4 * 12);
}

TEST(ClipGrads, NanInfinityAndNonPositiveMaxNormGoTheExactWay) {
  std::vector<float> g = grads_of_norm(100, 0.5, 1);
  EXPECT_TRUE(detail::surely_unclipped(g.data(), g.size(), 1.0));
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    std::vector<float> b = g;
    b[37] = bad;
    EXPECT_FALSE(detail::surely_unclipped(b.data(), b.size(), 1.0)) << bad;
    expect_same_as_clip_grad_norm(b, 1.0);
  }
  for (double max_norm : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_FALSE(detail::surely_unclipped(g.data(), g.size(), max_norm)) << max_norm;
    expect_same_as_clip_grad_norm(g, max_norm);
  }
}

TEST(ClipGrads, QuickPathOnlyWhereTheFactorIsSurelyOne) {
  // Well inside: taken. At or just under max_norm, within the sums' rounding
  // and the 1e-6 PyTorch adds: left to clip_grad_norm. Beyond: never.
  for (double ratio : {0.0, 0.1, 0.5, 0.99, 0.9999})
    EXPECT_TRUE(detail::surely_unclipped(grads_of_norm(5000, ratio, 3).data(), 5000, 1.0)) << ratio;
  for (double ratio : {0.9999999, 1.0, 1.0001, 10.0})
    EXPECT_FALSE(detail::surely_unclipped(grads_of_norm(5000, ratio, 3).data(), 5000, 1.0)) << ratio;
  // A max_norm of a few 1e-6: the added 1e-6 decides, and the quick path stays out of its way.
  EXPECT_FALSE(detail::surely_unclipped(grads_of_norm(50, 1e-6, 3).data(), 50, 2e-6));
}

}  // namespace
}  // namespace attnlab::optim
