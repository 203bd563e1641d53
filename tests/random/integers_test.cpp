// torch.randint and random_() on int64 (docs/torch_rng.md §3). Figures come from
// PyTorch 1.13 via scripts/make_rng_goldens.py (data/random/integers.json).
#include <gtest/gtest.h>

#include <stdexcept>

#include "random/generator.hpp"
#include "random/golden_calls.hpp"

namespace attnlab::random {
namespace {

TEST(RandomIntegers, MatchesPyTorch) {
  // [1,10), [0,2), [-5,5), [0,2^32-1) (one word each), [0,2^32), [-2^39,2^39),
  // [-2^62,2^62), [-2^63,2^63-1) (two words each), and the course's
  // (8000,1) in [1,10) then (8000,7) in [1,9) on one seed-0 generator.
  testing::replay_file("random/integers.json", 9);
}

TEST(RandomIntegers, WordCountSwitchesAt2To32) {
  Generator a(1), b(1);
  std::int64_t v = 0;
  a.randint(&v, 1, 0, (std::int64_t{1} << 32) - 1);
  b.random();
  EXPECT_TRUE(a == b);
  a.randint(&v, 1, 0, std::int64_t{1} << 32);
  b.random64();
  EXPECT_TRUE(a == b);
}

TEST(RandomIntegers, RefusesEmptyRange) {
  Generator g;
  std::int64_t v = 0;
  EXPECT_THROW(g.randint(&v, 1, 3, 3), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::random
