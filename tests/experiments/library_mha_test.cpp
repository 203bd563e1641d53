// library_mha (course script 14) against the course's printed shapes and
// causal weights.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::testing {
namespace {

TEST(LibraryMha, PrintsTheCourseTableByteForByte) {
  // data/course/14_library_mha.course.txt, which PyTorch 1.13 reproduces
  // digit for digit (14_library_mha.torch113.txt).
  EXPECT_EQ(run_kind("library_mha").text, course_text("14_library_mha.course.txt"));
}

TEST(LibraryMha, OtherSizesMatchPyTorch) {
  // 14_library_mha.py with nn.MultiheadAttention(48, 6) and x = randn(3, 9, 48)
  // under PyTorch 1.13.
  EXPECT_EQ(run_kind("library_mha", {{"d_model", 48}, {"n_heads", 6}, {"batch", 3}, {"length", 9}}).text,
            "output  (3, 9, 48)\n"
            "weights (3, 9, 9)  averaged over heads by default\n"
            "per head (3, 6, 9, 9)\n"
            "\n"
            "with a causal mask, position 0 attends to: 1.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00\n");
}

TEST(LibraryMha, RefusesHeadsThatDoNotDivideTheWidth) {
  EXPECT_THROW(run_kind("library_mha", {{"n_heads", 3}}), spec::SpecError);
}

}  // namespace
}  // namespace attnlab::testing
