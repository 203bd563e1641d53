// cost_table (course script 15) against the course's printed table.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"

namespace attnlab::testing {
namespace {

TEST(CostTable, PrintsTheCourseTableByteForByte) {
  // data/course/15_cost_table.course.txt; PyTorch 1.13's Python prints the
  // same (15_cost_table.torch113.txt).
  EXPECT_EQ(run_kind("cost_table").text, course_text("15_cost_table.course.txt"));
}

TEST(CostTable, OtherLengthsGiveTSquaredScoresAndTSteps) {
  const auto r = run_kind("cost_table", {{"lengths", {3, 100000}}});
  // 100000² = 10^10 overflows 32 bits: the column is 64-bit
  EXPECT_EQ(r.text.find("    length attention scores    recurrent steps\n"
                        "         3                9                  3\n"
                        "    100000      10000000000             100000\n\n"),
            0u)
      << r.text;
  EXPECT_EQ(r.data.at("rows")[1].at("attention_scores").get<long long>(), 10000000000LL);
}

}  // namespace
}  // namespace attnlab::testing
