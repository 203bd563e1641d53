// nn.CrossEntropyLoss(): cases by hand (including logits of +-1e4),
// finite-difference gradients and PyTorch parity (data/kernels/layers_parity.json,
// from scripts/make_layer_goldens.py).
#include "kernels/cross_entropy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/layer_parity.hpp"

namespace {

using namespace attnlab::testing;          // golden files, finite differences
using namespace attnlab::testing::layers;  // the comparisons with PyTorch

std::vector<std::int32_t> as_labels(const nlohmann::json& j) {
  std::vector<std::int32_t> v;
  for (const auto& x : j) v.push_back(x.get<std::int32_t>());
  return v;
}

TEST(CrossEntropy, ForwardAndBackwardByHand) {
  // row 0: logits [0, 0], label 0: loss = log(e^0 + e^0) - 0 = ln 2 = 0.6931472
  // row 1: logits [1, 0], label 0: loss = log(e^1 + 1) - 1 = log(1 + e^-1) = 0.3132617
  // mean over B=2: (0.6931472 + 0.3132617) / 2 = 0.5032044
  const float logits[] = {0, 0, 1, 0};
  const std::int32_t labels[] = {0, 0};
  float probs[4];
  const float loss = attnlab::kernels::cross_entropy_forward(probs, logits, labels, 2, 2);
  EXPECT_NEAR(loss, (0.6931471805599453 + 0.31326168751822286) / 2, 1e-7);
  EXPECT_EQ(probs[0], 0.5f);
  // dlogits = (probs - onehot) / B: row 0 -> [(0.5 - 1)/2, 0.5/2] = [-0.25, 0.25]
  float dlogits[4] = {0, 0, 0, 0};
  attnlab::kernels::cross_entropy_backward(dlogits, 1.0f, probs, labels, 2, 2);
  EXPECT_EQ(dlogits[0], -0.25f);
  EXPECT_EQ(dlogits[1], 0.25f);
  // without a probs buffer the loss is the same
  EXPECT_EQ(attnlab::kernels::cross_entropy_forward<float>(nullptr, logits, labels, 2, 2), loss);
}

TEST(CrossEntropy, StableForHugeLogits) {
  // Unshifted, exp(1e4) is inf in float32 and in double. With the row max
  // subtracted: row 0 [1e4, -1e4] label 0 -> log(1 + e^-2e4) = 0;
  // row 1 [1e4, -1e4] label 1 -> log(1 + e^-2e4) + 2e4 = 2e4; mean 1e4.
  const float logits[] = {1e4f, -1e4f, 1e4f, -1e4f};
  const std::int32_t labels[] = {0, 1};
  float probs[4];
  const float loss = attnlab::kernels::cross_entropy_forward(probs, logits, labels, 2, 2);
  ASSERT_TRUE(std::isfinite(loss));
  EXPECT_EQ(loss, 1e4f);
  EXPECT_EQ(probs[0], 1.0f);
  EXPECT_EQ(probs[1], 0.0f);
  float dlogits[4] = {0, 0, 0, 0};
  attnlab::kernels::cross_entropy_backward(dlogits, 1.0f, probs, labels, 2, 2);
  // row 1: (p - onehot) / 2 = [(1 - 0)/2, (0 - 1)/2]
  EXPECT_EQ(dlogits[2], 0.5f);
  EXPECT_EQ(dlogits[3], -0.5f);
  for (float d : dlogits) EXPECT_TRUE(std::isfinite(d));
}

TEST(CrossEntropy, RejectsBadLabelsAndDims) {
  const float logits[4] = {};
  float probs[4];
  const std::int32_t bad[] = {0, 2};
  const std::int32_t negative[] = {-1, 0};
  EXPECT_THROW(attnlab::kernels::cross_entropy_forward(probs, logits, bad, 2, 2), std::out_of_range);
  EXPECT_THROW(attnlab::kernels::cross_entropy_forward(probs, logits, negative, 2, 2),
               std::out_of_range);
  EXPECT_THROW(attnlab::kernels::cross_entropy_forward(probs, logits, bad, 0, 2),
               std::invalid_argument);
  float d[4];
  EXPECT_THROW(attnlab::kernels::cross_entropy_backward(d, 1.0f, probs, bad, 2, 2), std::out_of_range);
}

TEST(CrossEntropy, GradientCheck) {
  const int B = 3, K = 4;
  const std::int32_t labels[B] = {2, 0, 2};
  const double dloss = 0.7;  // upstream gradient, not 1, so the scaling is checked
  std::vector<double> logits(B * K), probs(B * K);
  fill_pseudo_random(logits.data(), logits.size(), 51, 3.0);
  auto loss = [&] {
    return dloss * attnlab::kernels::cross_entropy_forward(probs.data(), logits.data(), labels, B, K);
  };
  loss();  // probs at the unperturbed point
  std::vector<double> dlogits(B * K, -2.0);  // prefilled: backward adds
  attnlab::kernels::cross_entropy_backward(dlogits.data(), dloss, probs.data(), labels, B, K);
  for (auto& v : dlogits) v += 2.0;
  expect_gradient_close("dlogits", dlogits.data(),
                        numerical_gradient(loss, logits.data(), logits.size()));
}

// Figures from PyTorch 1.13 (nn.CrossEntropyLoss() on (6, 3) logits of std 2,
// and on (3, 2) logits of +-1e4 and 3000; loss.backward(0.7)); float32 here
// within 1e-5 relative.
void check_parity(const nlohmann::json& c) {
  const int B = c["B"], K = c["K"];
  const auto logits = as_floats(c["logits"]);
  const auto labels = as_labels(c["labels"]);
  const float dloss = static_cast<float>(c["dloss"].get<double>());
  std::vector<float> probs(B * K), dlogits(B * K, 0.f);
  const float loss =
      attnlab::kernels::cross_entropy_forward(probs.data(), logits.data(), labels.data(), B, K);
  expect_close_to_torch("loss", &loss, {static_cast<float>(c["loss"].get<double>())});
  attnlab::kernels::cross_entropy_backward(dlogits.data(), dloss, probs.data(), labels.data(), B, K);
  expect_close_to_torch("dlogits", dlogits.data(), as_floats(c["dlogits"]));
}

TEST(CrossEntropy, MatchesPyTorch) {
  check_parity(load_golden("kernels/layers_parity.json")["cross_entropy"]);
}

TEST(CrossEntropy, MatchesPyTorchOnHugeLogits) {
  check_parity(load_golden("kernels/layers_parity.json")["cross_entropy_large"]);
}

}  // namespace
