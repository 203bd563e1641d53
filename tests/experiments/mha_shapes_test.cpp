// mha_shapes (course script 06) against the course's printed shapes and
// parameter count.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::testing {
namespace {

TEST(MhaShapes, PrintsTheCourseTableByteForByte) {
  // data/course/06_mha_shapes.course.txt; PyTorch 1.13 prints the same
  // (06_mha_shapes.torch113.txt).
  EXPECT_EQ(run_kind("mha_shapes").text, course_text("06_mha_shapes.course.txt"));
}

TEST(MhaShapes, OtherSizesGiveTheirShapesAndCount) {
  const auto r = run_kind("mha_shapes", {{"d_model", 48}, {"n_heads", 6}, {"batch", 3}, {"length", 5}});
  // qkv (144, 48) + (144) and out (48, 48) + (48): 4·48·48 + 4·48 = 9408
  EXPECT_EQ(r.text,
            "input    (3, 5, 48)\n"
            "output   (3, 5, 48)  same shape as the input\n"
            "weights  (3, 6, 5, 5)  = (batch, heads, query, key)\n"
            "parameters 9408\n");
}

TEST(MhaShapes, RefusesHeadsThatDoNotDivideTheWidth) {
  EXPECT_THROW(run_kind("mha_shapes", {{"n_heads", 5}}), spec::SpecError);
}

}  // namespace
}  // namespace attnlab::testing
