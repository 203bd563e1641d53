// The drift check an instructor's CI relies on: a changed digit is named by
// table, row and column; wall times differ freely but must be present.
#include <gtest/gtest.h>

#include "report/check.hpp"

namespace attnlab::report {
namespace {

// Two tables as `attnlab run` prints them: sqrt_d (course script 04) and
// rnn_vs_attention (script 18, with its measured time column).
const std::string kChapter =
    "== sqrt_d: experiments/sqrt_d.json ==\n"
    "   width        score std       max weight max weight scaled\n"
    "       8            3.579           0.7797           0.3327\n"
    "      64            5.087           0.9167           0.1394\n"
    "\n"
    "== rnn_vs_attention: experiments/rnn_vs_attention.json ==\n"
    "                               params   accuracy      time\n"
    "plain RNN                        6722     0.6200        5s\n"
    "LSTM                            25538     0.9790        9s\n";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(Check, IdenticalOutputMatches) { EXPECT_TRUE(compare_tables(kChapter, kChapter).empty()); }

TEST(Check, OneChangedDigitIsNamedByTableRowAndColumn) {
  const auto diffs = compare_tables(kChapter, replace(kChapter, "0.9167", "0.9168"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].table, "sqrt_d: experiments/sqrt_d.json");
  EXPECT_EQ(diffs[0].row, "64");
  EXPECT_EQ(diffs[0].column, "max weight");
  EXPECT_EQ(diffs[0].expected, "0.9167");
  EXPECT_EQ(diffs[0].actual, "0.9168");
  EXPECT_EQ(diffs[0].line, 3);
  const std::string text = describe(diffs, "data/chapter.txt");
  EXPECT_NE(text.find("table sqrt_d: experiments/sqrt_d.json, line 3, row \"64\", column \"max weight\": "
                      "expected 0.9167, got 0.9168"),
            std::string::npos)
      << text;
}

TEST(Check, ColumnsWithSpacesInTheirNames) {
  const auto diffs = compare_tables(kChapter, replace(kChapter, "0.3327", "0.3328"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].column, "max weight scaled");
  EXPECT_EQ(diffs[0].row, "8");
}

TEST(Check, WallTimesAreComparedByPresenceOnly) {
  EXPECT_TRUE(compare_tables(kChapter, replace(kChapter, "       9s", "      12s")).empty());
  const auto diffs = compare_tables(kChapter, replace(kChapter, "9s", "--"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].row, "LSTM");
  EXPECT_EQ(diffs[0].column, "time");
}

TEST(Check, AccuracyOfANamedRow) {
  const auto diffs = compare_tables(kChapter, replace(kChapter, "0.6200", "0.6350"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].table, "rnn_vs_attention: experiments/rnn_vs_attention.json");
  EXPECT_EQ(diffs[0].row, "plain RNN");
  EXPECT_EQ(diffs[0].column, "accuracy");
}

TEST(Check, MissingAndExtraTablesAndLines) {
  const std::string only_sqrt = kChapter.substr(0, kChapter.find("\n== rnn") + 1);
  auto diffs = compare_tables(kChapter, only_sqrt);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].row, "(whole table)");
  diffs = compare_tables(kChapter, kChapter + "GRU 1 2 3s\n");
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].column, "(whole line)");
}

TEST(Check, TablesMatchWhateverPathTheSpecWasGivenAs) {
  std::string moved = replace(kChapter, "== sqrt_d: experiments/sqrt_d.json ==", "== sqrt_d: /home/me/attnlab/experiments/sqrt_d.json ==");
  EXPECT_TRUE(compare_tables(kChapter, moved).empty());
}

TEST(Check, ASentenceAboveNumbersIsNotAHeader) {
  const std::string map = "attention weights from each position:\n 0  5   0.00  1.00\n";
  const auto diffs = compare_tables(map, replace(map, "1.00", "0.99"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].column, "value 4");
  EXPECT_EQ(diffs[0].row, "0");
}

TEST(Check, SpacingAloneIsADifference) {
  const auto diffs = compare_tables(kChapter, replace(kChapter, "       8  ", "      8   "));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].column, "(spacing)");
}

TEST(Check, MeasuredTokens) {
  EXPECT_TRUE(is_measured("5s"));
  EXPECT_TRUE(is_measured("77.4ms"));
  EXPECT_FALSE(is_measured("0.9790"));
  EXPECT_FALSE(is_measured("s"));
}

}  // namespace
}  // namespace attnlab::report
