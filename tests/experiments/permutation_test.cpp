// permutation (course script 05) against the course's printed text.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::testing {
namespace {

TEST(Permutation, PrintsTheCourseTextByteForByte) {
  // data/course/05_permutation.course.txt; PyTorch 1.13 prints the same
  // (05_permutation.torch113.txt).
  EXPECT_EQ(run_kind("permutation").text, course_text("05_permutation.course.txt"));
}

TEST(Permutation, AnyShuffleOfAnyLengthGivesTheSameRows) {
  const auto r = run_kind("permutation", {{"order", {4, 2, 0, 1, 3, 6, 5}}, {"width", 10}, {"seed", 3}});
  EXPECT_NE(r.text.find("in the shuffled order: True\n"), std::string::npos) << r.text;
  EXPECT_TRUE(r.data.at("same_rows").get<bool>());
  // the comparison is real: the rows agree to float32 rounding, not trivially
  EXPECT_LT(r.data.at("max_abs_difference").get<double>(), 1e-6);
}

TEST(Permutation, RefusesAnOrderThatIsNotAPermutation) {
  EXPECT_THROW(run_kind("permutation", {{"order", {0, 0, 1}}}), spec::SpecError);
  EXPECT_THROW(run_kind("permutation", {{"order", {0, 3, 1}}}), spec::SpecError);
}

}  // namespace
}  // namespace attnlab::testing
