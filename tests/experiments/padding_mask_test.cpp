// padding_mask (course script 10) against the course's printed mask and weights.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"

namespace attnlab::testing {
namespace {

TEST(PaddingMask, PrintsTheCourseTableByteForByte) {
  // data/course/10_padding_mask.course.txt, which PyTorch 1.13 reproduces
  // digit for digit (10_padding_mask.torch113.txt).
  EXPECT_EQ(run_kind("padding_mask").text, course_text("10_padding_mask.course.txt"));
}

TEST(PaddingMask, OtherLengthsPadToTheLongest) {
  // The mask and weights of 10_padding_mask.py with tokens of lengths 3, 5, 6
  // and scores randn(3, 6, 6), as PyTorch 1.13 prints them; sequence 0 now
  // has three padded positions and the sentence counts them.
  const auto r = run_kind("padding_mask", {{"lengths", {3, 5, 6}}});
  EXPECT_EQ(r.text,
            "padding mask, per sequence:\n"
            "tensor([[1, 1, 1, 0, 0, 0],\n"
            "        [1, 1, 1, 1, 1, 0],\n"
            "        [1, 1, 1, 1, 1, 1]], dtype=torch.int32)\n"
            "\n"
            "sequence 0, weights from position 0:\n"
            "  0.229 0.223 0.549 0.000 0.000 0.000\n"
            "the three padded positions get exactly zero weight.\n"
            "\n"
            "without it, padding would contribute to every average, and\n"
            "a short sequence in a batch of long ones would be mostly padding.\n");
}

TEST(PaddingMask, PaddedWeightsAreExactlyZero) {
  const auto w = run_kind("padding_mask", {{"lengths", {2, 7}}, {"seed", 9}}).data.at("sequence0_position0_weights");
  ASSERT_EQ(w.size(), 7u);
  for (int j = 2; j < 7; ++j) EXPECT_EQ(w[j].get<double>(), 0.0);
  EXPECT_NEAR(w[0].get<double>() + w[1].get<double>(), 1.0, 1e-6);
}

}  // namespace
}  // namespace attnlab::testing
