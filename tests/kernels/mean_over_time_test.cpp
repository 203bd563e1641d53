// Mean over time, h.mean(dim=1): a forward case by hand, finite-difference
// gradients and PyTorch parity (data/kernels/layers_parity.json, from
// scripts/make_layer_goldens.py).
#include "kernels/mean_over_time.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/layer_parity.hpp"

namespace {

using namespace attnlab::testing;          // golden files, finite differences
using namespace attnlab::testing::layers;  // the comparisons with PyTorch

TEST(MeanOverTime, ForwardAndBackwardByHand) {
  // B=1, T=2, C=2: rows [1, 2] and [3, 6] -> [(1+3)/2, (2+6)/2] = [2, 4]
  const float x[] = {1, 2, 3, 6};
  float out[2];
  attnlab::kernels::mean_over_time_forward(out, x, 1, 2, 2);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 4);
  // dout [1, -4]: each time step gets dout / 2 = [0.5, -2], added to the prefill 1
  const float dout[] = {1, -4};
  float dinp[] = {1, 1, 1, 1};
  attnlab::kernels::mean_over_time_backward(dinp, dout, 1, 2, 2);
  const float want[] = {1.5f, -1, 1.5f, -1};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(dinp[i], want[i]) << i;
  // written instead of added: the prefill is gone, and a dout of -0 gives +0 as 0 + -0 does
  const float dout_zero[] = {-0.0f, -4};
  float written[] = {7, 7, 7, 7};
  attnlab::kernels::mean_over_time_backward(written, dout_zero, 1, 2, 2, true);
  const float want_written[] = {0.0f, -2, 0.0f, -2};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(written[i], want_written[i]) << i;
    EXPECT_FALSE(std::signbit(written[i]) && written[i] == 0.0f) << "a +0, as adding into zeros gives, at " << i;
  }
  EXPECT_THROW(attnlab::kernels::mean_over_time_forward(out, x, 1, 0, 2), std::invalid_argument);
}

TEST(MeanOverTime, GradientCheck) {
  const int B = 2, T = 3, C = 4;
  std::vector<double> x(B * T * C), g(B * C), out(B * C);
  fill_pseudo_random(x.data(), x.size(), 41);
  fill_pseudo_random(g.data(), g.size(), 42);
  auto loss = [&] {
    attnlab::kernels::mean_over_time_forward(out.data(), x.data(), B, T, C);
    double s = 0;
    for (int i = 0; i < B * C; ++i) s += out[i] * g[i];
    return s;
  };
  std::vector<double> dinp(B * T * C, 3.0);  // prefilled: backward adds
  attnlab::kernels::mean_over_time_backward(dinp.data(), g.data(), B, T, C);
  for (auto& v : dinp) v -= 3.0;
  expect_gradient_close("dinp", dinp.data(), numerical_gradient(loss, x.data(), x.size()));
}

// Figures from PyTorch 1.13 (x.mean(dim=1) on a (3, 4, 5) x); float32 here
// within 1e-5 relative.
TEST(MeanOverTime, MatchesPyTorch) {
  const auto c = load_golden("kernels/layers_parity.json")["mean_over_time"];
  const int B = c["B"], T = c["T"], C = c["C"];
  const auto inp = as_floats(c["inp"]), dout = as_floats(c["dout"]);
  std::vector<float> out(B * C), dinp(B * T * C, 0.f);
  attnlab::kernels::mean_over_time_forward(out.data(), inp.data(), B, T, C);
  expect_close_to_torch("out", out.data(), as_floats(c["out"]));
  attnlab::kernels::mean_over_time_backward(dinp.data(), dout.data(), B, T, C);
  expect_close_to_torch("dinp", dinp.data(), as_floats(c["dinp"]));
}

}  // namespace
