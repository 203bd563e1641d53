// causal_mask (course script 09) against the course's printed mask and weights.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"

namespace attnlab::testing {
namespace {

TEST(CausalMask, PrintsTheCourseTableByteForByte) {
  // data/course/09_causal_mask.course.txt, which PyTorch 1.13 reproduces
  // digit for digit (09_causal_mask.torch113.txt).
  EXPECT_EQ(run_kind("causal_mask").text, course_text("09_causal_mask.course.txt"));
}

TEST(CausalMask, LongMasksPrintAsPyTorchSummarisesThem) {
  // 09_causal_mask.py with T = 32 under PyTorch 1.13: 1024 elements pass the
  // print threshold of 1000, so rows and columns are cut to three each side.
  const auto r = run_kind("causal_mask", {{"length", 32}});
  EXPECT_EQ(r.text.find("lower triangular mask:\n"
                        "tensor([[1, 0, 0,  ..., 0, 0, 0],\n"
                        "        [1, 1, 0,  ..., 0, 0, 0],\n"
                        "        [1, 1, 1,  ..., 0, 0, 0],\n"
                        "        ...,\n"
                        "        [1, 1, 1,  ..., 1, 0, 0],\n"
                        "        [1, 1, 1,  ..., 1, 1, 0],\n"
                        "        [1, 1, 1,  ..., 1, 1, 1]], dtype=torch.int32)\n"
                        "\nattention weights after masking:\n"
                        "  pos 0  1.00 0.00 0.00"),
            0u)
      << r.text;
  EXPECT_NE(r.text.find("\nposition 0 sees only itself; position 31 sees everything.\n"), std::string::npos);
}

TEST(CausalMask, NoWeightOnTheFuture) {
  const auto w = run_kind("causal_mask", {{"length", 9}, {"seed", 5}}).data.at("weights");
  ASSERT_EQ(w.size(), 9u);
  for (int i = 0; i < 9; ++i) {
    double sum = 0;
    for (int j = 0; j < 9; ++j) {
      if (j > i) {
        EXPECT_EQ(w[i][j].get<double>(), 0.0) << i << "," << j;
      }
      sum += w[i][j].get<double>();
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

}  // namespace
}  // namespace attnlab::testing
