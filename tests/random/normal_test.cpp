// torch.randn / normal_ on both kernel paths (docs/torch_rng.md §4). Figures come
// from PyTorch 1.13 via scripts/make_rng_goldens.py (data/random/normal.json).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "random/avx_mathfun.hpp"
#include "random/generator.hpp"
#include "random/golden_calls.hpp"

namespace attnlab::random {
namespace {

TEST(RandomNormal, MatchesPyTorch) {
  // randn (1,8), (20,8), (1,64), (20,512), (5,8), (4,6), (2,6,32), 3, 15, 16,
  // 17, 31, 33 and 100003 (head, tail, checksum); the cache across
  // randn(3), randn(40), randn(5), randn(1,8); odd sizes repeated; manual_seed
  // clearing the cache; normal_(0.5, 0.02) and normal_(-1.3, 3.7) on 64, 7,
  // 5 (mean 0, std 1 in between) and 50 elements.
  testing::replay_file("random/normal.json", 19);
}

TEST(RandomNormal, PathBUsesFourWordsPerPairAndCachesTheSecond) {
  Generator g(2), words(2);
  float x[2];
  g.normal(x, 1);  // draws u1, u2 and caches r*sin
  words.random64();
  words.random64();
  Generator after_first = g;
  g.normal(x + 1, 1);  // cache only: no words
  EXPECT_FALSE(after_first == words);  // differs by the held cache
  EXPECT_TRUE(g == words);
}

TEST(RandomNormal, PathAWordCountIncludesTheTailRedraw) {
  for (std::size_t n : {16u, 17u, 32u, 40u}) {
    Generator g(3), words(3);
    std::vector<float> out(n);
    g.normal(out.data(), n);
    for (std::size_t k = 0; k < n + (n % 16 ? 16 : 0); ++k) words.random();
    EXPECT_TRUE(g == words) << "n = " << n;
  }
}

TEST(RandomNormal, RefusesNegativeStd) {
  Generator g;
  float x = 0;
  EXPECT_THROW(g.normal(&x, 1, 0.0, -1.0), std::invalid_argument);
}

// The Cephes lanes are approximations of log/sin/cos; a coarse check that
// they are the right functions (exactness is the golden test's job).
TEST(RandomNormal, AvxMathfunLanesApproximateLibm) {
  for (float u = 1.0f / 16777216.0f; u <= 1.0f; u *= 1.37f) {
    EXPECT_NEAR(detail::log256(u), std::log(u), 4e-7f * std::fabs(std::log(u)) + 1e-7f) << u;
  }
  EXPECT_EQ(detail::log256(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(detail::log256(0.0f)));
  for (float t = 0.0f; t < 6.2831855f; t += 0.01f) {
    float s = 0, c = 0;
    detail::sincos256(t, s, c);
    EXPECT_NEAR(s, std::sin(t), 3e-7f) << t;
    EXPECT_NEAR(c, std::cos(t), 3e-7f) << t;
  }
}

}  // namespace
}  // namespace attnlab::random
