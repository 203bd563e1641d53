// The comparison helpers every parity test relies on fail on NaN and
// infinity: with `err > worst`, a NaN never counted as an error, so a partly
// NaN gradient passed every model parity test.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "support/gradcheck.hpp"
#include "support/layer_parity.hpp"
#include "support/parity.hpp"

namespace attnlab::testing {
namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();
const std::vector<float> kWant = {0.5f, -0.25f, 1.0f};

TEST(ComparisonHelpers, TensorCloseFailsOnANanOrInfinityAnywhere) {
  static const std::vector<float> ok = {0.5f, -0.25f, 1.0f}, nan_at_1 = {0.5f, kNan, 1.0f},
                                  inf_at_2 = {0.5f, -0.25f, kInf};
  expect_tensor_close("grad", ok.data(), kWant, 1e-6);  // and the fine case passes
  EXPECT_NONFATAL_FAILURE(expect_tensor_close("grad", nan_at_1.data(), kWant, 1e-6), "grad[1]");
  EXPECT_NONFATAL_FAILURE(expect_tensor_close("grad", inf_at_2.data(), kWant, 1e-6), "not finite");
  EXPECT_NONFATAL_FAILURE(expect_tensor_close("grad", ok.data(), nan_at_1, 1e-6), "not finite");
  static const std::vector<float> off = {0.5f, -0.25f, 1.001f};
  EXPECT_NONFATAL_FAILURE(expect_tensor_close("grad", off.data(), kWant, 1e-6), "grad[2]");
}

TEST(ComparisonHelpers, LayerHelpersFailOnANanOrInfinity) {
  static const std::vector<float> nan_at_1 = {0.5f, kNan, 1.0f}, inf_want = {0.5f, -0.25f, kInf};
  EXPECT_FATAL_FAILURE(layers::expect_close_to_torch("out", nan_at_1.data(), kWant), "out[1]");
  EXPECT_FATAL_FAILURE(layers::expect_close_to_torch("out", kWant.data(), inf_want), "out[2]");
  // Bit equality: the same NaN bits on both sides still fail.
  EXPECT_FATAL_FAILURE(layers::expect_bits_equal("init", nan_at_1.data(), nan_at_1), "init[1]");
}

TEST(ComparisonHelpers, GradientCheckFailsOnANanOrInfinity) {
  static const std::vector<double> numerical = {1.0, 2.0}, inf_numerical = {1.0, kInf};
  static const double nan_analytic[] = {1.0, std::numeric_limits<double>::quiet_NaN()};
  static const double fine[] = {1.0, 2.0};
  EXPECT_FATAL_FAILURE(expect_gradient_close("w", nan_analytic, numerical), "w[1]");
  EXPECT_FATAL_FAILURE(expect_gradient_close("w", fine, inf_numerical), "w[1]");
}

}  // namespace
}  // namespace attnlab::testing
