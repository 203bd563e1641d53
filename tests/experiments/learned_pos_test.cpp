// learned_pos (course script 11) against the course's printed shapes and
// difference.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::testing {
namespace {

TEST(LearnedPos, PrintsTheCourseTableByteForByte) {
  // data/course/11_learned_pos.course.txt, which PyTorch 1.13 reproduces
  // digit for digit (11_learned_pos.torch113.txt).
  EXPECT_EQ(run_kind("learned_pos").text, course_text("11_learned_pos.course.txt"));
}

TEST(LearnedPos, AnotherSeedMatchesPyTorch) {
  // 11_learned_pos.py with torch.manual_seed(1) under PyTorch 1.13 prints
  // "  difference 1.2716".
  const auto r = run_kind("learned_pos", {{"seed", 1}});
  EXPECT_NE(r.text.find("\n  difference 1.2716\n"), std::string::npos) << r.text;
}

TEST(LearnedPos, ShapesFollowTheSequenceAndWidth) {
  const auto r = run_kind("learned_pos", {{"tokens", {1, 2, 3, 4, 5, 6}}, {"d_model", 24}});
  EXPECT_EQ(r.text.find("token embeddings    (1, 6, 24)\n"
                        "position embeddings (6, 24)\n"
                        "added together      (1, 6, 24)\n"),
            0u)
      << r.text;
}

TEST(LearnedPos, RefusesTokensOutsideTheTables) {
  EXPECT_THROW(run_kind("learned_pos", {{"tokens", {3, 10}}}), spec::SpecError);       // vocab is 10
  EXPECT_THROW(run_kind("learned_pos", {{"same_token", 10}}), spec::SpecError);
  EXPECT_THROW(run_kind("learned_pos", {{"tokens", {1, 1, 1, 1, 1, 1, 1, 1, 1}}}), spec::SpecError);  // max_len 8
}

}  // namespace
}  // namespace attnlab::testing
