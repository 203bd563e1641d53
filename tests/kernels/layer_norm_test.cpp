// nn.LayerNorm: a forward case by hand, finite-difference gradients and
// PyTorch parity (data/kernels/layers_parity.json, from scripts/make_layer_goldens.py).
#include "kernels/layer_norm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/layer_parity.hpp"

namespace {

using namespace attnlab::testing;          // golden files, finite differences
using namespace attnlab::testing::layers;  // the comparisons with PyTorch

TEST(LayerNorm, ForwardByHand) {
  // x = [1, 2, 3, 4]: mean 2.5, biased variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25,
  // rstd = 1 / sqrt(1.25 + 1e-5); with weight 1 and bias 0,
  // out = (x - 2.5) * rstd = [-1.5, -0.5, 0.5, 1.5] / 1.1180384 = [-1.3416354, -0.4472118, ...]
  const double x[] = {1, 2, 3, 4}, w[] = {1, 1, 1, 1}, b[] = {0, 0, 0, 0};
  double out[4], mean, rstd;
  attnlab::kernels::layer_norm_forward(out, &mean, &rstd, x, w, b, 1, 4);
  EXPECT_DOUBLE_EQ(mean, 2.5);
  EXPECT_NEAR(rstd, 1 / std::sqrt(1.25001), 1e-15);
  EXPECT_NEAR(out[0], -1.3416354199689269, 1e-14);
  EXPECT_NEAR(out[1], -0.447211806656309, 1e-14);
  EXPECT_NEAR(out[2], 0.447211806656309, 1e-14);
  EXPECT_NEAR(out[3], 1.3416354199689269, 1e-14);
  // weight 2, bias 1 on channel 3: 2 * 1.3416354 + 1
  const double w2[] = {1, 1, 1, 2}, b2[] = {0, 0, 0, 1};
  attnlab::kernels::layer_norm_forward(out, &mean, &rstd, x, w2, b2, 1, 4);
  EXPECT_NEAR(out[3], 2 * 1.3416354199689269 + 1, 1e-14);
  // a constant row has variance 0: out = bias, rstd = 1/sqrt(eps), no NaN
  const float c[] = {7, 7, 7};
  const float wf[] = {1, 1, 1}, bf[] = {0.5f, 0, -1};
  float outf[3], meanf, rstdf;
  attnlab::kernels::layer_norm_forward(outf, &meanf, &rstdf, c, wf, bf, 1, 3);
  EXPECT_EQ(outf[0], 0.5f);
  EXPECT_EQ(outf[2], -1.0f);
}

TEST(LayerNorm, RejectsBadDims) {
  float x[2] = {}, m[1], r[1];
  EXPECT_THROW(attnlab::kernels::layer_norm_forward(x, m, r, x, x, x, 1, 0), std::invalid_argument);
  EXPECT_THROW(attnlab::kernels::layer_norm_backward(x, x, x, x, m, r, x, x, -1, 2),
               std::invalid_argument);
}

TEST(LayerNorm, GradientCheck) {
  const int N = 3, C = 5;
  std::vector<double> inp(N * C), weight(C), bias(C), g(N * C), out(N * C), mean(N), rstd(N);
  fill_pseudo_random(inp.data(), inp.size(), 21, 2.0);
  fill_pseudo_random(weight.data(), weight.size(), 22);
  fill_pseudo_random(bias.data(), bias.size(), 23);
  fill_pseudo_random(g.data(), g.size(), 24);
  auto loss = [&] {
    attnlab::kernels::layer_norm_forward(out.data(), mean.data(), rstd.data(), inp.data(),
                                    weight.data(), bias.data(), N, C);
    double s = 0;
    for (int i = 0; i < N * C; ++i) s += out[i] * g[i];
    return s;
  };
  loss();  // fills the caches at the unperturbed point
  std::vector<double> dinp(N * C, 0.125), dweight(C, -0.25), dbias(C, 1.0);  // backward adds
  attnlab::kernels::layer_norm_backward(dinp.data(), dweight.data(), dbias.data(), g.data(),
                                   mean.data(), rstd.data(), inp.data(), weight.data(), N, C);
  for (auto& v : dinp) v -= 0.125;
  for (auto& v : dweight) v += 0.25;
  for (auto& v : dbias) v -= 1.0;
  expect_gradient_close("dinp", dinp.data(), numerical_gradient(loss, inp.data(), inp.size()));
  expect_gradient_close("dweight", dweight.data(),
                        numerical_gradient(loss, weight.data(), weight.size()));
  expect_gradient_close("dbias", dbias.data(), numerical_gradient(loss, bias.data(), bias.size()));
}

// Figures from PyTorch 1.13 (nn.LayerNorm(6) with non-trivial weight and
// bias on inputs of mean 3, std 2; mean and rstd from torch.native_layer_norm);
// float32 here within 1e-5 relative.
TEST(LayerNorm, MatchesPyTorch) {
  const auto c = load_golden("kernels/layers_parity.json")["layer_norm"];
  const int N = c["N"], C = c["C"];
  const auto inp = as_floats(c["inp"]), weight = as_floats(c["weight"]),
             bias = as_floats(c["bias"]), dout = as_floats(c["dout"]);
  std::vector<float> out(N * C), mean(N), rstd(N), dinp(N * C, 0.f), dweight(C, 0.f),
      dbias(C, 0.f);
  attnlab::kernels::layer_norm_forward(out.data(), mean.data(), rstd.data(), inp.data(), weight.data(),
                                  bias.data(), N, C);
  expect_close_to_torch("out", out.data(), as_floats(c["out"]));
  expect_close_to_torch("mean", mean.data(), as_floats(c["mean"]));
  expect_close_to_torch("rstd", rstd.data(), as_floats(c["rstd"]));
  attnlab::kernels::layer_norm_backward(dinp.data(), dweight.data(), dbias.data(), dout.data(),
                                   mean.data(), rstd.data(), inp.data(), weight.data(), N, C);
  expect_close_to_torch("dinp", dinp.data(), as_floats(c["dinp"]));
  expect_close_to_torch("dweight", dweight.data(), as_floats(c["dweight"]));
  expect_close_to_torch("dbias", dbias.data(), as_floats(c["dbias"]));
}

// write_dinp gives the bytes of adding into zeros (callers drop their fill on
// that promise), whatever dinp held; dweight and dbias still add.
TEST(LayerNorm, BackwardWritingDinpGivesTheBytesOfAddingIntoZeros) {
  const int N = 5, C = 11;  // C: a whole register and a tail
  std::vector<float> x(N * C), w(C), b(C), dout(N * C), out(N * C), mean(N), rstd(N);
  for (int i = 0; i < N * C; ++i) {
    x[i] = std::sin(0.7f * i) * 2.0f;
    dout[i] = std::cos(1.3f * i);
  }
  for (int c = 0; c < C; ++c) w[c] = 0.5f + 0.1f * c, b[c] = -0.2f * c;
  attnlab::kernels::layer_norm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C);
  std::vector<float> added(N * C, 0.0f), written(N * C, 123.0f), dw0(C, 0.5f), db0(C, 0.5f), dw1(dw0), db1(db0);
  attnlab::kernels::layer_norm_backward(added.data(), dw0.data(), db0.data(), dout.data(), mean.data(), rstd.data(),
                                   x.data(), w.data(), N, C);
  attnlab::kernels::layer_norm_backward(written.data(), dw1.data(), db1.data(), dout.data(), mean.data(), rstd.data(),
                                   x.data(), w.data(), N, C, true);
  EXPECT_EQ(std::memcmp(added.data(), written.data(), added.size() * sizeof(float)), 0);
  EXPECT_EQ(dw0, dw1);
  EXPECT_EQ(db0, db1);
  EXPECT_NE(added[0], 0.0f);
}

// nn.LayerNorm(4) right after construction (data/kernels/layers_init.json, seed1):
// ones and zeros, no draws.
TEST(LayerNormInit, OnesAndZeros) {
  const auto golden = load_golden("kernels/layers_init.json");
  const auto& m = golden["seed1"]["modules"][3];
  std::vector<float> w(4, -7.f), b(4, -7.f);
  attnlab::kernels::layer_norm_init(w.data(), b.data(), 4);
  EXPECT_EQ(w, as_floats(m["weight"]));
  EXPECT_EQ(b, as_floats(m["bias"]));
}

}  // namespace
