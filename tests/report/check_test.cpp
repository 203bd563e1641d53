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
  // The row is labelled by its position and digit; the value counts after them.
  EXPECT_EQ(diffs[0].column, "value 2");
  EXPECT_EQ(diffs[0].row, "0 5");
}

TEST(Check, SpacingAloneIsADifference) {
  const auto diffs = compare_tables(kChapter, replace(kChapter, "       8  ", "      8   "));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].column, "(spacing)");
}

// Two specs of one name in different folders: each is compared with its own
// table. Keyed by base name, a drift in x was hidden behind y's table.
TEST(Check, SpecsOfOneNameInTwoFoldersAreBothCompared) {
  const std::string table = kChapter.substr(kChapter.find('\n') + 1, kChapter.find("\n\n") - kChapter.find('\n'));
  const std::string both = "== sqrt_d: x/sqrt_d.json ==\n" + table + "\n== sqrt_d: y/sqrt_d.json ==\n" + table;
  EXPECT_TRUE(compare_tables(both, both).empty());
  const std::string x_drifts = "== sqrt_d: x/sqrt_d.json ==\n" + replace(table, "0.9167", "0.9168") +
                               "\n== sqrt_d: y/sqrt_d.json ==\n" + table;
  auto diffs = compare_tables(both, x_drifts);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].table, "sqrt_d: x/sqrt_d.json");
  // The same in the other order of the printed tables.
  const std::string swapped = "== sqrt_d: y/sqrt_d.json ==\n" + table + "\n== sqrt_d: x/sqrt_d.json ==\n" +
                              replace(table, "0.9167", "0.9168");
  diffs = compare_tables(both, swapped);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].table, "sqrt_d: x/sqrt_d.json");
}

TEST(Check, AnotherFolderOfTheSameNameIsNotTheSameSpec) {
  const std::string table = kChapter.substr(kChapter.find('\n') + 1, kChapter.find("\n\n") - kChapter.find('\n'));
  const std::string want = "== sqrt_d: experiments/sqrt_d.json ==\n" + table;
  const std::string got = "== sqrt_d: x/sqrt_d.json ==\n" + table + "\n== sqrt_d: y/sqrt_d.json ==\n" + table;
  const auto diffs = compare_tables(want, got);
  ASSERT_EQ(diffs.size(), 3u);  // experiments/ missing; x and y not expected
  EXPECT_EQ(diffs[0].actual, "nothing: the run did not print it");
}

TEST(Check, ABareNameMatchingTwoTablesIsAmbiguousNotAPass) {
  const std::string table = kChapter.substr(kChapter.find('\n') + 1, kChapter.find("\n\n") - kChapter.find('\n'));
  const std::string want = "== sqrt_d: sqrt_d.json ==\n" + table;
  const std::string got = "== sqrt_d: x/sqrt_d.json ==\n" + table + "\n== sqrt_d: y/sqrt_d.json ==\n" + table;
  const auto diffs = compare_tables(want, got);
  ASSERT_EQ(diffs.size(), 3u);
  EXPECT_NE(diffs[0].actual.find("x/sqrt_d.json and sqrt_d: y/sqrt_d.json could each be it"), std::string::npos)
      << diffs[0].actual;
}

TEST(Check, ASpecRunTwiceIsComparedInOrder) {
  const std::string twice = kChapter + "\n" + kChapter.substr(0, kChapter.find("\n\n") + 1);
  EXPECT_TRUE(compare_tables(twice, twice).empty());
  const auto diffs = compare_tables(twice, kChapter);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].row, "(whole table)");
}

// What one spec prints has no heading; a check against it compares the run's
// one table (which --check renders with its heading).
TEST(Check, TheOutputOfOneSpecChecksItsOwnRun) {
  const std::string alone = kChapter.substr(kChapter.find('\n') + 1, kChapter.find("\n\n") - kChapter.find('\n'));
  const std::string headed = "== sqrt_d: experiments/sqrt_d.json ==\n" + alone;
  EXPECT_TRUE(compare_tables(alone, headed).empty());
  auto diffs = compare_tables(alone, replace(headed, "0.9167", "0.9168"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].column, "max weight");
  diffs = compare_tables(alone, kChapter);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].actual, "2 tables");
}

TEST(Check, RowsAreNamedByTheirFullLabels) {
  const std::string rnn =
      "== rnn_vs_attention: experiments/rnn_vs_attention.json ==\n"
      "                               params   accuracy      time\n"
      "attention, 1 block              13666     0.9995       14s\n";
  auto diffs = compare_tables(rnn, replace(rnn, "0.9995", "1.0000"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].row, "attention, 1 block");
  EXPECT_EQ(diffs[0].column, "accuracy");
  const std::string heads = "head 2, what position 0 looks at: 0.15 0.24 0.08\n";
  diffs = compare_tables(heads, replace(heads, "0.24", "0.25"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].row, "head 2, what position 0 looks at");
  EXPECT_EQ(diffs[0].column, "value 2");
  const std::string causal = "  pos 3  0.27 0.33 0.23 0.17 0.00 0.00\n";
  diffs = compare_tables(causal, replace(causal, "0.17", "0.18"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].row, "pos 3");
  EXPECT_EQ(diffs[0].column, "value 4");
  const std::string sentence = "all of position 2    -> [2.0, 2.0]\n";
  diffs = compare_tables(sentence, replace(sentence, "[2.0,", "[2.5,"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].row, "all of position 2");
  const std::string heads_trained = "   heads  attn params      mult-adds   accuracy      time\n"
                                    "       4         4224        2359296     0.9995        1s\n";
  diffs = compare_tables(heads_trained, replace(heads_trained, "0.9995", "1.0000"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].row, "4");
  EXPECT_EQ(diffs[0].column, "accuracy");
}

TEST(Check, FilesThatCannotBeAnExpectedOutput) {
  EXPECT_EQ(expected_text_problem(kChapter), "");
  EXPECT_NE(expected_text_problem(replace(kChapter, "\n", "\r\n")).find("Windows line endings (CRLF)"),
            std::string::npos);
  EXPECT_EQ(expected_text_problem(""), "it is empty");
  EXPECT_NE(expected_text_problem(std::string("a\0b", 3)).find("NUL"), std::string::npos);
}

TEST(Check, MeasuredTokens) {
  EXPECT_TRUE(is_measured("5s"));
  EXPECT_TRUE(is_measured("77.4ms"));
  EXPECT_FALSE(is_measured("0.9790"));
  EXPECT_FALSE(is_measured("s"));
}

}  // namespace
}  // namespace attnlab::report

namespace attnlab::report {
namespace {

// Found by fuzzing (tests/fuzz/regressions/check/chapter_against_itself): a
// text holding the same heading twice (`attnlab run a.json a.json`) differed
// from itself, because the second table of a name replaced the first.
TEST(CheckRegressions, ATableNamedTwiceIsComparedInOrder) {
  const std::string twice = "== sqrt_d: a.json ==\n   width   max weight\n       8       0.7797\n\n"
                            "== sqrt_d: a.json ==\n   width   max weight\n       8       0.9999\n";
  EXPECT_TRUE(compare_tables(twice, twice).empty());
  const std::string second_changed = "== sqrt_d: a.json ==\n   width   max weight\n       8       0.7797\n\n"
                                     "== sqrt_d: a.json ==\n   width   max weight\n       8       0.9998\n";
  const auto d = compare_tables(twice, second_changed);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].expected, "0.9999");
  EXPECT_EQ(d[0].actual, "0.9998");
  const auto missing = compare_tables(twice, twice.substr(0, twice.find("\n\n") + 1));
  ASSERT_EQ(missing.size(), 1u);  // the second is missing from the printed text
  EXPECT_EQ(missing[0].actual, "nothing: the run did not print it");
}

}  // namespace
}  // namespace attnlab::report
