// torch.rand / uniform_ (docs/torch_rng.md §2). Figures come from PyTorch 1.13
// via scripts/make_rng_goldens.py (data/random/uniform.json).
#include <gtest/gtest.h>

#include <stdexcept>

#include "random/generator.hpp"
#include "random/golden_calls.hpp"

namespace attnlab::random {
namespace {

TEST(RandomUniform, MatchesPyTorch) {
  // rand(7); uniform_ over (-0.3, 0.3), +-nn.Linear(32)'s bound and (1.5, 4.0),
  // 2000 values each, where a separately rounded u*range + from is off by
  // 1 ulp in about half the values.
  testing::replay_file("random/uniform.json", 4);
}

TEST(RandomUniform, HandCaseUsesLow24BitsOfOneWord) {
  // u = (w & 0xFFFFFF) * 2^-24, then fma(u, 1, 0) = u.
  Generator g(0), words(0);
  float x = 0;
  g.uniform(&x, 1);
  EXPECT_EQ(x, static_cast<float>(words.random() & 0xFFFFFF) / 16777216.0f);
  EXPECT_TRUE(g == words);
}

TEST(RandomUniform, RefusesReversedRange) {
  Generator g;
  float x = 0;
  EXPECT_THROW(g.uniform(&x, 1, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(g.uniform(&x, 1, -1e39, 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::random
