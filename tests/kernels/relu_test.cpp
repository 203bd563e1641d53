// ReLU (lib/kernels/relu): values by hand, and the backward pass against central
// finite differences away from the kink.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/relu.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

TEST(Relu, ForwardAndBackward) {
  const std::vector<double> x = {-2.0, -0.5, 0.0, 0.25, 3.0};
  std::vector<double> y(x.size());
  relu_forward(y.data(), x.data(), x.size());
  EXPECT_EQ(y, (std::vector<double>{0.0, 0.0, 0.0, 0.25, 3.0}));
  const std::vector<double> dy = {1, 2, 3, 4, 5};
  std::vector<double> dx(x.size(), 10.0);  // backward adds
  relu_backward(dx.data(), dy.data(), x.data(), x.size());
  EXPECT_EQ(dx, (std::vector<double>{10, 10, 10, 14, 15}));  // the gradient at 0 is 0, as PyTorch's

  std::vector<double> xs = {-1.3, 0.7, 2.1, -0.2};
  auto loss = [&] {
    std::vector<double> out(xs.size());
    relu_forward(out.data(), xs.data(), xs.size());
    double l = 0;
    for (std::size_t i = 0; i < out.size(); ++i) l += out[i] * double(i + 1);
    return l;
  };
  std::vector<double> g = {1, 2, 3, 4}, d(xs.size(), 0.0);
  relu_backward(d.data(), g.data(), xs.data(), xs.size());
  attnlab::testing::expect_gradient_close("dx", d.data(), attnlab::testing::numerical_gradient(loss, xs.data(), xs.size()));
}

}  // namespace
}  // namespace attnlab::kernels
