// The small row reductions of tensor/row_ops.hpp, checked against values
// worked by hand and against the rules of the torch functions they stand for.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tensor/row_ops.hpp"

namespace attnlab::tensor {
namespace {

TEST(RowOps, ArgmaxReturnsTheFirstMaximumAsTorchDoes) {
  const std::vector<float> x = {0.5f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(argmax(x.data(), x.size()), 1);  // torch.argmax(tensor([.5, 2, -1, 2])) == 1
  const std::vector<float> last = {-3.0f, -2.0f, -1.0f};
  EXPECT_EQ(argmax(last.data(), last.size()), 2);
  const float one = 7.0f;
  EXPECT_EQ(argmax(&one, 1), 0);
}

TEST(RowOps, SoftmaxSubtractsTheMaximumSoLargeScoresDoNotOverflow) {
  std::vector<float> x = {1000.0f, 1000.0f + std::log(3.0f)};  // exp(1000) overflows float32
  // the gap as float32 holds it near 1000 (an ulp is 6e-5), so about log 3
  const double gap = static_cast<double>(x[1]) - static_cast<double>(x[0]);
  softmax_inplace(x.data(), x.size());
  EXPECT_NEAR(x[0], 1.0 / (1.0 + std::exp(gap)), 1e-6);
  EXPECT_NEAR(x[1], 1.0 / (1.0 + std::exp(-gap)), 1e-6);
  EXPECT_NEAR(x[1], 0.75, 1e-4);
}

TEST(RowOps, StdIsBesselCorrectedAndNaNBelowTwoValues) {
  const std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f};
  EXPECT_NEAR(std_unbiased(x.data(), x.size()), std::sqrt(5.0 / 3.0), 1e-12);  // torch.std: 1.2910
  EXPECT_TRUE(std::isnan(std_unbiased(x.data(), 1)));
  EXPECT_EQ(max_value(x.data(), x.size()), 4.0f);
}

}  // namespace
}  // namespace attnlab::tensor
