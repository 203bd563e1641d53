// heads' untrained part (course script 07): its sentence says what its rows
// show. The trained part is in trained_tables_test.cpp.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"

namespace attnlab::testing {
namespace {

TEST(Heads, UntrainedPartPrintsTheCourseText) {
  // data/course/07_heads_differ.course.txt, digit for digit (PyTorch 1.13 prints the same).
  EXPECT_EQ(run_kind("heads", {{"heads", nlohmann::json::array()}}).text, course_text("07_heads_differ.course.txt"));
}

TEST(Heads, OnePositionGivesIdenticalRowsAndTheSentenceSaysSo) {
  // Softmax over one key is 1.00 for every head: "the four rows differ" would be false.
  const auto r = run_kind("heads", {{"heads", nlohmann::json::array()}, {"untrained_length", 1}});
  for (int h = 0; h < 4; ++h)
    EXPECT_NE(r.text.find("head " + std::to_string(h) + ", what position 0 looks at: 1.00\n"), std::string::npos)
        << r.text;
  EXPECT_EQ(r.text.find("rows differ"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("Here all 4 rows print the same (one position: every weight is 1.00),\n"
                        "so they cannot show heads that differ.\n"),
            std::string::npos)
      << r.text;
  EXPECT_EQ(r.data.at("distinct_untrained_rows"), 1);
}

TEST(Heads, EightDifferentRowsSayEight) {
  const auto r = run_kind("heads", {{"heads", nlohmann::json::array()}, {"untrained_heads", 8}});
  EXPECT_EQ(r.data.at("distinct_untrained_rows"), 8) << r.text;
  EXPECT_NE(r.text.find("8 rows differ, which one head could not produce.\n"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace attnlab::testing
