// Dropout given a keep mask: a forward case by hand, finite-difference
// gradients and PyTorch parity (data/kernels/layers_parity.json, from
// scripts/make_layer_goldens.py).
#include "kernels/dropout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "random/generator.hpp"
#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/layer_parity.hpp"

namespace {

using namespace attnlab::testing;          // golden files, finite differences
using namespace attnlab::testing::layers;  // the comparisons with PyTorch

std::vector<std::uint8_t> as_mask(const nlohmann::json& j) {
  std::vector<std::uint8_t> v;
  for (const auto& x : j) v.push_back(static_cast<std::uint8_t>(x.get<int>()));
  return v;
}

TEST(Dropout, ForwardByHand) {
  // p = 0.5: scale = 1 / 0.5 = 2; keep [1, 0, 1, 0]
  const float x[] = {1, -2, 3, -4};
  const std::uint8_t keep[] = {1, 0, 1, 0};
  float out[4];
  attnlab::kernels::dropout_forward(out, x, keep, 2.0f, 4);
  // [1*2, -2*0, 3*2, -4*0] = [2, -0.0, 6, -0.0]: dropped negatives keep their sign
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_TRUE(std::signbit(out[1]));
  EXPECT_EQ(out[2], 6.0f);
  EXPECT_TRUE(std::signbit(out[3]));
  // in place works too
  float y[] = {1, -2, 3, -4};
  attnlab::kernels::dropout_forward(y, y, keep, 2.0f, 4);
  EXPECT_EQ(std::memcmp(y, out, sizeof y), 0);
  // backward: dinp += dout * [2, 0, 2, 0]
  const float dout[] = {1, 1, 1, 1};
  float dinp[] = {0.5f, 0.5f, 0.5f, 0.5f};
  attnlab::kernels::dropout_backward(dinp, dout, keep, 2.0f, 4);
  EXPECT_EQ(dinp[0], 2.5f);
  EXPECT_EQ(dinp[1], 0.5f);
}

TEST(Dropout, GradientCheck) {
  const std::size_t n = 9;
  const std::uint8_t keep[n] = {1, 1, 0, 1, 0, 0, 1, 1, 1};
  const double scale = 1.0 / (1.0 - 0.3);
  std::vector<double> x(n), g(n), out(n);
  fill_pseudo_random(x.data(), n, 31);
  fill_pseudo_random(g.data(), n, 32);
  auto loss = [&] {
    attnlab::kernels::dropout_forward(out.data(), x.data(), keep, scale, n);
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += out[i] * g[i];
    return s;
  };
  std::vector<double> dinp(n, 0.25);  // prefilled: backward adds
  attnlab::kernels::dropout_backward(dinp.data(), g.data(), keep, scale, n);
  for (auto& v : dinp) v -= 0.25;
  expect_gradient_close("dinp", dinp.data(), numerical_gradient(loss, x.data(), n));
}

// Figures from PyTorch 1.13 (F.dropout(x, 0.25, training=True) after
// torch.manual_seed(7) on a (4, 8) x, with the keep mask it drew). A single
// multiply per element, so the float32 output matches bit for bit, -0.0
// included (tighter than the 1e-5 relative used for other layers). The
// gradient matches in value: PyTorch's x.grad holds dout * 0 = -0.0 where
// dout < 0 is dropped, ours is accumulated into a zeroed buffer, 0 + -0.0 = +0.0.
TEST(Dropout, MatchesPyTorch) {
  const auto c = load_golden("kernels/layers_parity.json")["dropout"];
  const std::size_t n = c["n"];
  const auto inp = as_floats(c["inp"]), dout = as_floats(c["dout"]);
  const auto keep = as_mask(c["keep"]);
  const float scale = attnlab::random::dropout_scale(c["p"].get<double>());
  EXPECT_EQ(scale, c["scale"].get<double>());
  std::vector<float> out(n), dinp(n, 0.f);
  attnlab::kernels::dropout_forward(out.data(), inp.data(), keep.data(), scale, n);
  expect_bits_equal("out", out.data(), as_floats(c["out"]));
  attnlab::kernels::dropout_backward(dinp.data(), dout.data(), keep.data(), scale, n);
  const auto want_dinp = as_floats(c["dinp"]);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dinp[i], want_dinp[i]) << "dinp[" << i << "]";
}

// The same case with the mask drawn by our Generator from the same seed: the
// whole chain torch.manual_seed(7); F.dropout(x, 0.25) reproduced.
TEST(Dropout, MatchesPyTorchWithGeneratorMask) {
  const auto c = load_golden("kernels/layers_parity.json")["dropout"];
  const std::size_t n = c["n"];
  const auto inp = as_floats(c["inp"]);
  const double p = c["p"];
  attnlab::random::Generator gen(c["seed"].get<std::uint64_t>());
  std::vector<std::uint8_t> keep(n);
  gen.dropout_mask(keep.data(), n, p);
  EXPECT_EQ(keep, as_mask(c["keep"]));
  std::vector<float> out(n);
  attnlab::kernels::dropout_forward(out.data(), inp.data(), keep.data(),
                               attnlab::random::dropout_scale(p), n);
  expect_bits_equal("out", out.data(), as_floats(c["out"]));
}

}  // namespace
