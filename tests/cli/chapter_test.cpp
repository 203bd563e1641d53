// The whole chapter in one command, checked against the committed expected
// output data/chapter.txt, as an instructor's CI would run it; and a changed
// digit in that file is caught and named by table, row and column.
#include <gtest/gtest.h>

#include "cli/run_binary.hpp"

namespace attnlab::testing {
namespace {

const std::string kRoot = ATTNLAB_SOURCE_DIR;

// The text of one table of data/chapter.txt, heading included.
std::string section(const std::string& chapter, const std::string& kind) {
  const auto begin = chapter.find("== " + kind + ":");
  const auto end = chapter.find("\n== ", begin + 1);
  return chapter.substr(begin, end == std::string::npos ? std::string::npos : end + 1 - begin);
}

TEST(Chapter, EveryTableMatchesTheCommittedOutput) {
#ifdef ATTNLAB_SANITIZED_BUILD
  // ASan's instrumentation changes how float code is compiled; training
  // magnifies the rounding (bottleneck 64: 0.9815 -> 0.9790). The exact
  // tables are still compared below and in tests/experiments.
  GTEST_SKIP() << "trained figures differ in sanitizer builds";
#endif
  ScratchDir dir("chapter");
  // The instructor's CI line, from the repository root.
  const Outcome o = run_attnlab("run experiments/*.json --check data/chapter.txt", dir, kRoot);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("every table matches"), std::string::npos) << o.err;
  // Tables print in course order, each under a line naming it.
  EXPECT_EQ(o.out.find("== bottleneck: experiments/bottleneck.json ==\n"), 0u);
  EXPECT_LT(o.out.find("== sqrt_d:"), o.out.find("== positions:"));
  EXPECT_LT(o.out.find("== positions:"), o.out.find("== attention_map:"));
}

TEST(Chapter, ExactTablesAreByteIdenticalToTheCommittedOutput) {
  ScratchDir dir("chapter_exact");
  const std::string chapter = slurp(kRoot + "/data/chapter.txt");
  for (const std::string kind : {"sqrt_d", "causal_mask", "block"}) {
    const Outcome o = run_attnlab("run experiments/" + kind + ".json", dir, kRoot);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const std::string table = section(chapter, kind);
    EXPECT_EQ(o.out + "\n", table.substr(table.find('\n') + 1)) << kind;
  }
}

TEST(Chapter, AChangedDigitFailsTheCheckNamingTableRowAndColumn) {
  ScratchDir dir("chapter_drift");
  const std::string chapter = slurp(kRoot + "/data/chapter.txt");
  std::string expected = section(chapter, "sqrt_d") + "\n" + section(chapter, "block");
  expected.replace(expected.find("0.9167"), 6, "0.9168");  // sqrt_d, width 64, max weight
  const std::string file = dir.write("expected.txt", expected);
  const Outcome o = run_attnlab("run experiments/sqrt_d.json experiments/block.json --check " + file, dir, kRoot);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("1 difference"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("table sqrt_d: experiments/sqrt_d.json, line 3, row \"64\", column \"max weight\": "
                       "expected 0.9168, got 0.9167"),
            std::string::npos)
      << o.err;
}

TEST(Chapter, CheckRefusesAnUnreadableFileBeforeWork) {
  ScratchDir dir("chapter_nofile");
  const Outcome o = run_attnlab("run experiments/sqrt_d.json --check nowhere.txt", dir, kRoot);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.out, "");
}

}  // namespace
}  // namespace attnlab::testing
