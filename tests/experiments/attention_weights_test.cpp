// attention_weights (course script 03) against the course's printed table,
// and other seeds and sizes against what PyTorch 1.13 prints for them.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"

namespace attnlab::testing {
namespace {

TEST(AttentionWeights, PrintsTheCourseTableByteForByte) {
  // data/course/03_attention_weights.course.txt, which PyTorch 1.13 reproduces
  // digit for digit (03_attention_weights.torch113.txt).
  EXPECT_EQ(run_kind("attention_weights").text, course_text("03_attention_weights.course.txt"));
}

TEST(AttentionWeights, AnotherSeedMatchesPyTorch) {
  // 03_attention_weights.py with torch.manual_seed(1), run with PyTorch 1.13.
  EXPECT_EQ(run_kind("attention_weights", {{"seed", 1}}).text,
            "input   (5, 8)\n"
            "output  (5, 8)  one vector per position\n"
            "weights (5, 5)  one row per query\n"
            "\n"
            "every row sums to 1: True\n"
            "\n"
            "weights (row = the position doing the looking):\n"
            "  0  0.019 0.188 0.023 0.059 0.711\n"
            "  1  0.142 0.183 0.107 0.306 0.262\n"
            "  2  0.025 0.421 0.078 0.229 0.247\n"
            "  3  0.010 0.142 0.543 0.133 0.172\n"
            "  4  0.920 0.019 0.025 0.028 0.009\n");
}

TEST(AttentionWeights, OtherSizesGiveTheirShapesAndATableOfThatSize) {
  const auto r = run_kind("attention_weights", {{"positions", 7}, {"d_model", 12}});
  EXPECT_EQ(r.text.find("input   (7, 12)\noutput  (7, 12)  one vector per position\nweights (7, 7)  one row per query\n"),
            0u)
      << r.text;
  EXPECT_NE(r.text.find("every row sums to 1: True"), std::string::npos);
  ASSERT_EQ(r.data.at("weights").size(), 7u);
  for (const auto& row : r.data["weights"]) {
    ASSERT_EQ(row.size(), 7u);
    double sum = 0;
    for (const auto& w : row) sum += w.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

}  // namespace
}  // namespace attnlab::testing
