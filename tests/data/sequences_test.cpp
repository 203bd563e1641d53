// The course's task data. Figures come from PyTorch 1.13 via
// scripts/make_rng_goldens.py (data/data/sequences.json), which runs the
// course's own make_sequences (data/course/13_positions_vs_none.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "data/sequences.hpp"
#include "random/golden_calls.hpp"

namespace attnlab::data {
namespace {

TEST(Sequences, MatchCourseTrainingAndValidationSets) {
  // make_sequences(8000, seed=0) (X_tr, y_tr) and (2000, seed=1) (X_va, y_va).
  const auto golden = testing::load_golden("data/sequences.json");
  ASSERT_TRUE(golden.contains("_generated_by"));
  ASSERT_EQ(golden.at("cases").size(), 2u);
  for (const auto& c : golden.at("cases")) {
    const std::string name = c.at("name");
    const auto s = make_sequences(c.at("n").get<int>(), c.at("length").get<int>(),
                                  c.at("seed").get<std::uint64_t>());
    EXPECT_EQ(s.n, c.at("n").get<int>());
    EXPECT_EQ(s.length, c.at("length").get<int>());
    testing::expect_equal_lists(s.tokens, c.at("tokens").get<std::vector<std::int32_t>>(), name + " tokens");
    testing::expect_equal_lists(s.labels, c.at("labels").get<std::vector<std::int32_t>>(), name + " labels");
  }
}

TEST(Sequences, FirstValidationSequence) {
  const auto s = make_sequences(2000, 8, 1);
  EXPECT_EQ(std::vector<std::int32_t>(s.tokens.begin(), s.tokens.begin() + 8),
            (std::vector<std::int32_t>{5, 7, 9, 5, 9, 9, 6, 4}));
  EXPECT_EQ(s.labels[0], 1);
}

TEST(Sequences, LabelSaysWhetherFirstDigitRecurs) {
  const auto s = make_sequences(500, 8, 3);
  for (int i = 0; i < s.n; ++i) {
    const auto row = s.tokens.begin() + i * s.length;
    EXPECT_TRUE(std::all_of(row, row + s.length, [](int t) { return t >= 1 && t <= 9; }));
    const bool recurs = std::find(row + 1, row + s.length, row[0]) != row + s.length;
    EXPECT_EQ(s.labels[i], recurs ? 1 : 0) << "row " << i;
  }
}

TEST(Sequences, RefusesDegenerateShapes) {
  EXPECT_THROW(make_sequences(0, 8, 0), std::invalid_argument);
  EXPECT_THROW(make_sequences(10, 1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::data
