// The engine with the vectorised twist (random/mt19937.hpp) against two
// scalar references: the paper's one-word-at-a-time twist, and libstdc++'s
// std::mt19937, which is PyTorch's stream for the same low 32 bits of a seed
// (docs/torch_rng.md §1; engine_test.cpp replays PyTorch's own recorded words).
// Over a million draws from each of several seeds, so every lane, every
// block boundary and the wrap at word 623 are crossed many times.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "random/generator.hpp"
#include "random/mt19937.hpp"

namespace attnlab::random {
namespace {

// 0, 1, the paper's default, 42, all ones, the low half of torch's default seed
const std::array<std::uint32_t, 6> kSeeds = {0u, 1u, 5489u, 42u, 0xFFFFFFFFu,
                                             static_cast<std::uint32_t>(kDefaultSeed)};
constexpr int kDraws = 1'000'000;

TEST(Mt19937, VectorisedTwistEqualsTheScalarTwistBlockAfterBlock) {
  for (std::uint32_t seed : kSeeds) {
    std::mt19937 ref(seed);  // only for a seeded block: init_genrand
    std::vector<std::uint32_t> a(Mt19937::kN), b(Mt19937::kN);
    a[0] = seed;
    for (int i = 1; i < Mt19937::kN; ++i) a[i] = 1812433253u * (a[i - 1] ^ (a[i - 1] >> 30)) + std::uint32_t(i);
    b = a;
    for (int block = 0; block < kDraws / Mt19937::kN + 1; ++block) {
      mt19937_twist(a.data());
      mt19937_twist_scalar(b.data());
      ASSERT_EQ(a, b) << "seed " << seed << ", block " << block;
    }
    // and the scalar twist is the standard's: its first block tempered is std::mt19937's first 624 words
    std::vector<std::uint32_t> c(Mt19937::kN);
    c[0] = seed;
    for (int i = 1; i < Mt19937::kN; ++i) c[i] = 1812433253u * (c[i - 1] ^ (c[i - 1] >> 30)) + std::uint32_t(i);
    mt19937_twist_scalar(c.data());
    for (int i = 0; i < Mt19937::kN; ++i) ASSERT_EQ(Mt19937::temper(c[i]), ref()) << "seed " << seed << ", word " << i;
  }
}

TEST(Mt19937, WordsEqualStdMt19937OverAMillionDraws) {
  for (std::uint32_t seed : kSeeds) {
    Mt19937 ours(seed);
    std::mt19937 ref(seed);
    for (int i = 0; i < kDraws; ++i) ASSERT_EQ(ours(), ref()) << "seed " << seed << ", draw " << i;
  }
  EXPECT_EQ(Mt19937()(), std::mt19937()());  // 5489 unless told
}

TEST(Mt19937, FillGivesTheSameWordsInAnyChunksAndMixedWithSingleDraws) {
  // chunk lengths across lane (8), block (624) and tail boundaries
  const std::array<int, 9> chunks = {1, 7, 8, 9, 623, 624, 625, 1000, 1301};
  for (std::uint32_t seed : kSeeds) {
    Mt19937 ours(seed);
    std::mt19937 ref(seed);
    std::vector<std::uint32_t> got(1301);
    int drawn = 0;
    for (int round = 0; drawn < kDraws; ++round) {
      const int n = chunks[round % chunks.size()];
      ours.fill(got.data(), std::size_t(n));
      for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], ref()) << "seed " << seed << ", word " << drawn + i;
      ASSERT_EQ(ours(), ref()) << "a single draw after a fill, seed " << seed;
      drawn += n + 1;
    }
  }
}

TEST(Mt19937, EqualityIsStateAndPosition) {
  Mt19937 a(3), b(3);
  EXPECT_TRUE(a == b);
  a();
  EXPECT_FALSE(a == b);
  std::uint32_t w;
  b.fill(&w, 1);
  EXPECT_TRUE(a == b);
  a.seed(4);
  b.seed(3);
  EXPECT_FALSE(a == b);
}

// The block dropout mask (integer threshold on words filled 512 at a time)
// against the definition it replaced, on std::mt19937's words: the 53-bit
// double of w64() below 1 - p in double arithmetic.
TEST(Mt19937, DropoutMaskEqualsTheDoubleComparisonOnStdMt19937) {
  const std::array<double, 7> ps = {0.1, 0.5, 0.25, 0.3, 1e-9, 1.0 - 1e-9, 0.9};
  std::vector<std::uint8_t> keep(kDraws);
  for (std::uint32_t seed : {0u, 42u, 0xFFFFFFFFu}) {
    for (double p : ps) {
      Generator g(seed);
      std::mt19937 ref(seed);
      // odd lengths, so a call ends inside a block and inside a 256-pair chunk
      std::size_t done = 0;
      for (std::size_t n : {std::size_t(1), std::size_t(255), std::size_t(257), std::size_t(kDraws) - 513}) {
        g.dropout_mask(keep.data() + done, n, p);
        done += n;
      }
      std::size_t kept = 0;
      for (std::size_t i = 0; i < done; ++i) {
        const std::uint64_t hi = ref(), lo = ref();
        const double u = double(((hi << 32) | lo) & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53;
        ASSERT_EQ(keep[i], u < 1.0 - p ? 1 : 0) << "seed " << seed << ", p " << p << ", element " << i;
        kept += keep[i];
      }
      // and the words drawn are two per element: the next word is the reference's next
      EXPECT_EQ(g.random(), ref()) << "seed " << seed << ", p " << p;
      EXPECT_NEAR(double(kept) / double(done), 1.0 - p, 0.005) << "seed " << seed << ", p " << p;
    }
  }
}

}  // namespace
}  // namespace attnlab::random
