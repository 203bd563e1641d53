// F.dropout's keep mask and scale (docs/torch_rng.md §6). Figures come from
// PyTorch 1.13 via scripts/make_rng_goldens.py (data/random/dropout.json).
#include <gtest/gtest.h>

#include <stdexcept>

#include "random/generator.hpp"
#include "random/golden_calls.hpp"

namespace attnlab::random {
namespace {

TEST(RandomDropout, MatchesPyTorch) {
  // F.dropout(ones(n), p, training=True) after torch.manual_seed: p = 0.1 and
  // 0.5 (n = 1000), 0 and 1 (no draws), 0.25 (n = 37).
  testing::replay_file("random/dropout.json", 5);
}

TEST(RandomDropout, ScaleIsRoundedReciprocalOfRoundedKeepProbability) {
  EXPECT_EQ(testing::bits(dropout_scale(0.1)), 0x3F8E38E4u);  // 1.1111112f
  EXPECT_EQ(dropout_scale(0.5), 2.0f);
  EXPECT_EQ(dropout_scale(0.0), 1.0f);
  EXPECT_EQ(dropout_scale(1.0), 0.0f);
  EXPECT_THROW(dropout_scale(1.5), std::invalid_argument);
}

TEST(RandomDropout, TwoWordsPerElement) {
  Generator g(8), words(8);
  std::uint8_t keep[3];
  g.dropout_mask(keep, 3, 0.3);
  for (int i = 0; i < 3; ++i) words.random64();
  EXPECT_TRUE(g == words);
  EXPECT_THROW(g.dropout_mask(keep, 3, -0.1), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::random
