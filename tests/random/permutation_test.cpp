// torch.randperm (docs/torch_rng.md §3). Figures come from PyTorch 1.13 via
// scripts/make_rng_goldens.py (data/random/permutation.json).
#include <gtest/gtest.h>

#include <stdexcept>

#include "random/generator.hpp"
#include "random/golden_calls.hpp"

namespace attnlab::random {
namespace {

TEST(RandomPermutation, MatchesPyTorch) {
  // n = 0, 1, 2, 3, 10, 100, 1000, 8000, seed n + 1 each.
  testing::replay_file("random/permutation.json", 8);
}

TEST(RandomPermutation, HandCaseNEquals2) {
  // One word: z = w % 2 swaps r[0] and r[1] when odd.
  Generator g(4), words(4);
  const bool swap = words.random() % 2 == 1;
  const auto r = g.randperm(2);
  EXPECT_EQ(r, (std::vector<std::int64_t>{swap ? 1 : 0, swap ? 0 : 1}));
  EXPECT_TRUE(g == words);
}

TEST(RandomPermutation, SmallNDrawNothingAndNegativeThrows) {
  Generator g(4), untouched(4);
  EXPECT_TRUE(g.randperm(0).empty());
  EXPECT_EQ(g.randperm(1), std::vector<std::int64_t>{0});
  EXPECT_TRUE(g == untouched);
  EXPECT_THROW(g.randperm(-1), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::random
