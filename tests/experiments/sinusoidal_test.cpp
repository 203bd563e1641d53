// sinusoidal (course script 12) against what the script prints.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::testing {
namespace {

TEST(Sinusoidal, PrintsWhatPyTorchPrintsByteForByte) {
  // data/course/12_sinusoidal.torch113.txt, the script's output under
  // PyTorch 1.13: the course text lost the "  0  " row prefixes and the dot
  // line's "  4.", so it is not the reference here.
  EXPECT_EQ(run_kind("sinusoidal").text, course_text("12_sinusoidal.torch113.txt"));
}

TEST(Sinusoidal, OtherSizesMatchPyTorchBelowTheHeading) {
  // 12_sinusoidal.py with sinusoidal(10, 16) under PyTorch 1.13: row 9 and
  // the dot products (the script's heading still says 6 and 8).
  const auto r = run_kind("sinusoidal", {{"positions", 10}, {"d_model", 16}});
  EXPECT_EQ(r.text.find("positional encodings, 10 positions of width 16:\n"), 0u) << r.text;
  EXPECT_NE(r.text.find("\n  9  +0.41 -0.91 +0.29 -0.96 +0.78 +0.62 +0.28 +0.96 +0.09 +1.00 +0.03 +1.00 +0.01 "
                        "+1.00 +0.00 +1.00\n"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("\n  8.00 7.49 6.37 5.54 5.56 6.14 6.44 5.89 4.70 3.71\n"), std::string::npos) << r.text;
}

TEST(Sinusoidal, RefusesAnOddWidth) { EXPECT_THROW(run_kind("sinusoidal", {{"d_model", 7}}), spec::SpecError); }

}  // namespace
}  // namespace attnlab::testing
