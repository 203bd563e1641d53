// self_cross (course script 08) against the course's printed shapes.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"

namespace attnlab::testing {
namespace {

TEST(SelfCross, PrintsTheCourseTextByteForByte) {
  // data/course/08_self_cross.course.txt; PyTorch 1.13 prints the same
  // (08_self_cross.torch113.txt).
  EXPECT_EQ(run_kind("self_cross").text, course_text("08_self_cross.course.txt"));
}

TEST(SelfCross, BothOutputsTakeTheTargetsShapeWhateverTheSource) {
  const auto r = run_kind("self_cross", {{"source_length", 11}, {"target_length", 3}, {"d_model", 8}, {"batch", 2}});
  EXPECT_EQ(r.text.find("self-attention on the target   (2, 3, 8)\n"
                        "cross-attention to the source  (2, 3, 8)\n"),
            0u)
      << r.text;
}

}  // namespace
}  // namespace attnlab::testing
