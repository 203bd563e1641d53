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
  const auto r = run_kind("permutation", {{"order", {4, 2, 0, 1, 3, 6, 5}}, {"d_model", 10}, {"seed", 3}});
  EXPECT_NE(r.text.find("in the shuffled order: True\n"), std::string::npos) << r.text;
  EXPECT_TRUE(r.data.at("same_rows").get<bool>());
  // the comparison is real: the rows agree to float32 rounding, not trivially
  EXPECT_LT(r.data.at("max_abs_difference").get<double>(), 1e-6);
}

// Wider and longer, the two runs can differ by float32 rounding beyond the
// course's fixed atol of 1e-6: 2e-5 at width 60 over 16 positions, where the
// projections run on OpenBLAS (60 is not a multiple of 8) and a row's sums
// depend on where the shuffle put it in the product. The sentence still says
// True, and names the difference and the rounding bound
// 4 * 2^-23 * (T + C) * max|output| it is held to.
TEST(Permutation, WideAndLongStillTheSameRowsWithinRoundingAndSaysSo) {
  const std::vector<int> order = {3, 15, 0, 9, 12, 1, 7, 14, 4, 10, 2, 13, 6, 11, 5, 8};
  const auto r = run_kind("permutation", {{"order", order}, {"d_model", 60}});
  const double diff = r.data.at("max_abs_difference"), bound = r.data.at("rounding_bound");
  EXPECT_GT(diff, 1e-6) << "no longer beyond the course's tolerance: this test lost its point";
  EXPECT_LE(diff, bound);
  EXPECT_TRUE(r.data.at("same_rows").get<bool>());
  EXPECT_FALSE(r.data.at("within_course_tolerance").get<bool>());
  EXPECT_NE(r.text.find("in the shuffled order: True (largest difference "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("float32 rounding over 16 positions of width 60; bound "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("so attention alone cannot tell 12345 from 54321."), std::string::npos) << r.text;
  // The bound grows with width and length.
  const auto wider = run_kind("permutation", {{"order", order}, {"d_model", 256}});
  EXPECT_GT(wider.data.at("rounding_bound").get<double>(), bound);
  EXPECT_TRUE(wider.data.at("same_rows").get<bool>());
}

// At width 64 the projections run on attnlab's own tiles (tensor/sgemm_tiles.hpp),
// where a row's sums do not depend on its place in the product: only the
// softmax and the mix over the shuffled keys differ, and the rows agree to
// the course's own tolerance (1.4e-6 here, against 2.0e-5 on OpenBLAS).
TEST(Permutation, OnAttnlabsTilesWideAndLongRowsMeetTheCourseTolerance) {
  const std::vector<int> order = {3, 15, 0, 9, 12, 1, 7, 14, 4, 10, 2, 13, 6, 11, 5, 8};
  const auto r = run_kind("permutation", {{"order", order}, {"d_model", 64}});
  EXPECT_TRUE(r.data.at("within_course_tolerance").get<bool>());
  EXPECT_GT(r.data.at("max_abs_difference").get<double>(), 0.0) << "the keys' order still moves a last bit";
  EXPECT_NE(r.text.find("in the shuffled order: True\n"), std::string::npos) << r.text;
}

TEST(Permutation, RefusesAnOrderThatIsNotAPermutation) {
  EXPECT_THROW(run_kind("permutation", {{"order", {0, 0, 1}}}), spec::SpecError);
  EXPECT_THROW(run_kind("permutation", {{"order", {0, 3, 1}}}), spec::SpecError);
}

}  // namespace
}  // namespace attnlab::testing
