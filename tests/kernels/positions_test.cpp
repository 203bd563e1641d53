// Position tables (lib/kernels/positions): the sinusoidal table against the
// course's PyTorch formula for even and odd widths (data/kernels/positions.json,
// scripts/make_attention_page_goldens.py), the page's row by hand, odd widths
// keeping every column in place, and the learned table's normal_(std=0.02)
// initialisation bit for bit after manual_seed(0).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels/positions.hpp"
#include "random/generator.hpp"
#include "support/golden.hpp"

namespace attnlab::kernels {
namespace {

using attnlab::testing::as_floats;
using attnlab::testing::load_golden;

TEST(SinusoidalPositions, EqualPyTorchsFormulaForEvenAndOddWidths) {
  const auto golden = load_golden("kernels/positions.json");
  double worst = 0;
  std::size_t bit_equal = 0, total = 0;
  for (const auto& c : golden.at("sinusoidal")) {
    const int L = c.at("length"), C = c.at("d_model");
    SCOPED_TRACE("(" + std::to_string(L) + ", " + std::to_string(C) + ")");
    const auto want = as_floats(c.at("values"));
    std::vector<float> got(std::size_t(L) * C, -9.0f);
    sinusoidal_positions_fill(got.data(), L, C);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double e = std::abs(double(got[i]) - double(want[i]));
      worst = std::max(worst, e);
      // float32 sin/cos of the same float32 angle: libm and PyTorch's vectorised
      // kernel may differ in the last bit, nothing more
      ASSERT_LE(e, 2.4e-7) << "row " << i / C << " column " << i % C << ": " << got[i] << " vs PyTorch " << want[i];
      bit_equal += std::memcmp(&got[i], &want[i], sizeof(float)) == 0;
      ++total;
    }
  }
  std::printf("[ figure ] sinusoidal vs PyTorch, widths 1 2 3 4 7 8 33 64: max |diff| %.3g, %zu of %zu bit-equal\n",
              worst, bit_equal, total);
}

TEST(SinusoidalPositions, ThePagesRowAndOddWidths) {
  std::vector<float> pe(16);
  sinusoidal_positions_fill(pe.data(), 4, 4);
  // row 1: sin(1), cos(1), sin(1/100), cos(1/100) with rate_1 = 10000^(-2/4) = 0.01
  EXPECT_NEAR(pe[4], std::sin(1.0), 1e-7);
  EXPECT_NEAR(pe[5], std::cos(1.0), 1e-7);
  EXPECT_NEAR(pe[6], std::sin(0.01), 1e-7);
  EXPECT_NEAR(pe[7], std::cos(0.01), 1e-7);
  // width 5: columns 0-3 are width 4's table computed with rates of width 5;
  // column 4 is one more sin, of the third rate 10000^(-4/5); nothing shifts
  std::vector<float> odd(3 * 5);
  sinusoidal_positions_fill(odd.data(), 3, 5);
  for (int p = 0; p < 3; ++p) {
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(odd[p * 5 + 2 * k], std::sin(p * std::pow(10000.0, -2.0 * k / 5)), 2e-7) << p << " " << k;
    for (int k = 0; k < 2; ++k)
      EXPECT_NEAR(odd[p * 5 + 2 * k + 1], std::cos(p * std::pow(10000.0, -2.0 * k / 5)), 2e-7) << p << " " << k;
  }
  std::vector<float> one(3);
  sinusoidal_positions_fill(one.data(), 3, 1);  // width 1: one sin column at rate 1
  EXPECT_FLOAT_EQ(one[2], std::sin(2.0f));
  EXPECT_THROW(sinusoidal_positions_fill(one.data(), 3, 0), std::invalid_argument);
}

TEST(LearnedPositions, InitialisationIsPyTorchsBitForBit) {
  const auto golden = load_golden("kernels/positions.json");
  for (const auto& c : golden.at("learned")) {
    const int L = c.at("max_len"), C = c.at("d_model");
    random::Generator gen(0);
    std::vector<float> w(std::size_t(L) * C);
    learned_positions_init(gen, w.data(), L, C);
    const auto want = as_floats(c.at("weight"));
    for (std::size_t i = 0; i < w.size(); ++i)
      ASSERT_EQ(std::memcmp(&w[i], &want[i], sizeof(float)), 0) << i << ": " << w[i] << " vs " << want[i];
    std::int64_t next = 0;
    gen.randint(&next, 1, 0, std::int64_t(1) << 31);
    EXPECT_EQ(next, c.at("next_word_mod_2_31").get<std::int64_t>()) << "draw count";
  }
}

}  // namespace
}  // namespace attnlab::kernels
