// lstm_inference_forward against lstm_forward, the kernel the PyTorch goldens
// check (lstm_test.cpp): the same hidden states, with T on both sides of the
// chunk of kLstmInferenceChunk steps and B·H not a multiple of the 16-element
// padding.
#include "kernels/lstm_inference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/lstm.hpp"
#include "random/generator.hpp"

namespace attnlab::kernels {
namespace {

struct Shape {
  int B, T, I, H;
};

class LstmInference : public ::testing::TestWithParam<Shape> {};

TEST_P(LstmInference, MatchesTheTrainingForward) {
  const auto [B, T, I, H] = GetParam();
  random::Generator g(3);
  std::vector<float> w_ih(4 * H * I), w_hh(4 * H * H), b_ih(4 * H), b_hh(4 * H), x(std::size_t(B) * T * I);
  lstm_init(g, w_ih.data(), w_hh.data(), b_ih.data(), b_hh.data(), I, H);
  g.normal(x.data(), x.size());
  std::vector<float> want(std::size_t(B) * T * H), got(want.size(), -1.f);
  std::vector<float> cache(lstm_cache_size(B, T, H)), work(lstm_inference_workspace_size(B, H));
  lstm_forward<float>(want.data(), cache.data(), x.data(), w_ih.data(), w_hh.data(), b_ih.data(), b_hh.data(), B, T,
                      I, H);
  lstm_inference_forward<float>(got.data(), work.data(), x.data(), w_ih.data(), w_hh.data(), b_ih.data(),
                                b_hh.data(), B, T, I, H);
  // the same products and lane-wise maths step by step; only the input
  // projection's row count differs (a chunk instead of all B·T rows), which
  // OpenBLAS may round differently, so a ulp-scale tolerance (|h| < 1)
  for (std::size_t n = 0; n < want.size(); ++n) ASSERT_NEAR(got[n], want[n], 1e-6f) << "element " << n;
}

INSTANTIATE_TEST_SUITE_P(Shapes, LstmInference,
                         ::testing::Values(Shape{1, 1, 3, 4}, Shape{3, 63, 4, 5}, Shape{3, 64, 4, 5},
                                           Shape{2, 130, 7, 16}, Shape{8, 200, 64, 64}));

TEST(LstmInferenceWorkspace, DoesNotGrowWithLength) {
  // one chunk of input projections (B·64·4H) and a few (B, H) slices, aligned
  EXPECT_LE(lstm_inference_workspace_size(8, 64), 8u * 64 * 256 + 15u * 8 * 64 + 16 * 8);
  EXPECT_THROW(lstm_inference_workspace_size(0, 64), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::kernels
