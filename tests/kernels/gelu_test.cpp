// nn.GELU() (exact erf form): a forward case by hand, finite-difference
// gradients and PyTorch parity (data/kernels/layers_parity.json, from
// scripts/make_layer_goldens.py).
#include "kernels/gelu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/layer_parity.hpp"

namespace {

using namespace attnlab::testing;          // golden files, finite differences
using namespace attnlab::testing::layers;  // the comparisons with PyTorch

TEST(Gelu, ForwardAndBackwardByHand) {
  // GELU(x) = x Phi(x): Phi(0) = 0.5, Phi(1) = 0.5 (1 + erf(1/sqrt 2)) = 0.8413447460685429,
  // Phi(-1) = 1 - Phi(1) = 0.15865525393145707
  const double x[] = {0, 1, -1};
  double out[3];
  attnlab::kernels::gelu_forward(out, x, 3);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_NEAR(out[1], 0.8413447460685429, 1e-15);
  EXPECT_NEAR(out[2], -0.15865525393145707, 1e-15);
  // GELU'(x) = Phi(x) + x phi(x): at 0 it is 0.5; at 1 it is 0.8413447 + exp(-1/2)/sqrt(2 pi)
  // = 0.8413447 + 0.2419707 = 1.0833154705876864; each added to a prefilled 1
  const double dout[] = {1, 1, 1};
  double dinp[] = {1, 1, 1};
  attnlab::kernels::gelu_backward(dinp, dout, x, 3);
  EXPECT_NEAR(dinp[0], 1.5, 1e-15);
  EXPECT_NEAR(dinp[1], 1 + 1.0833154705876864, 1e-14);
}

TEST(Gelu, MatchesScalarLoopOnLargeBuffer) {
  // The vectorised xtensor path against std::erf element by element, across
  // many XSIMD batches and a ragged tail. XSIMD's double erf and exp are not
  // glibc's: measured 1.0e-14 apart on 3.15, hence 1e-13 relative.
  const std::size_t n = 1003;
  std::vector<double> x(n), dy(n), out(n), dx(n, 0.5);
  fill_pseudo_random(x.data(), n, 25, 6.0);
  fill_pseudo_random(dy.data(), n, 26);
  attnlab::kernels::gelu_forward(out.data(), x.data(), n);
  attnlab::kernels::gelu_backward(dx.data(), dy.data(), x.data(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const double cdf = 0.5 * (1 + std::erf(x[i] / std::sqrt(2.0)));
    const double pdf = std::exp(-0.5 * x[i] * x[i]) / std::sqrt(2 * M_PI);
    const double want_out = x[i] * cdf, want_dx = 0.5 + dy[i] * (cdf + x[i] * pdf);
    ASSERT_NEAR(out[i], want_out, 1e-13 * std::max(1.0, std::abs(want_out))) << i;
    ASSERT_NEAR(dx[i], want_dx, 1e-13 * std::max(1.0, std::abs(want_dx))) << i;
  }
}

TEST(Gelu, KeepingTheDerivativeGivesTheSameOutputAndGradient) {
  // The transformer block's pair (forward keeps GELU'(x), backward
  // multiplies by it) against the pair that recomputes it, in float as the
  // models train, over many registers and a ragged tail: the output
  // memcmp-equal, the gradient within the one extra rounding of phi's
  // exp argument (the erf's -z^2 for gelu_backward's -x^2 / 2).
  const std::size_t n = 1003;
  std::vector<double> xd(n), dyd(n);
  fill_pseudo_random(xd.data(), n, 27, 6.0);
  fill_pseudo_random(dyd.data(), n, 28);
  std::vector<float> x(xd.begin(), xd.end()), dy(dyd.begin(), dyd.end());
  std::vector<float> out(n), out_kept(n), d(n), dx(n), dx_kept(n, 0.25f);
  attnlab::kernels::gelu_forward(out.data(), x.data(), n);
  attnlab::kernels::gelu_forward_keep(out_kept.data(), d.data(), x.data(), n);
  EXPECT_EQ(0, std::memcmp(out.data(), out_kept.data(), n * sizeof(float)));
  // the kept backward writes: against what gelu_backward adds to a zeroed buffer
  attnlab::kernels::gelu_backward(dx.data(), dy.data(), x.data(), n);
  attnlab::kernels::gelu_backward_kept_overwrite(dx_kept.data(), dy.data(), d.data(), n);
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double err = std::abs(double(dx_kept[i]) - double(dx[i])) / std::max(1.0, std::abs(double(dx[i])));
    worst = std::max(worst, err);
    const double cdf = 0.5 * (1 + std::erf(xd[i] / std::sqrt(2.0)));
    const double want_d = cdf + double(x[i]) * std::exp(-0.5 * double(x[i]) * double(x[i])) / std::sqrt(2 * M_PI);
    ASSERT_NEAR(d[i], want_d, 1e-6) << i << " x=" << x[i];
  }
  EXPECT_LT(worst, 4e-7);
  // doubles take phi's own exp: the kept pair is gelu_backward's bytes
  std::vector<double> dd(n), outd(n), dxd(n, 0.0), dxd_kept(n);
  attnlab::kernels::gelu_forward_keep(outd.data(), dd.data(), xd.data(), n);
  attnlab::kernels::gelu_backward(dxd.data(), dyd.data(), xd.data(), n);
  attnlab::kernels::gelu_backward_kept_overwrite(dxd_kept.data(), dyd.data(), dd.data(), n);
  EXPECT_EQ(0, std::memcmp(dxd.data(), dxd_kept.data(), n * sizeof(double)));
}

TEST(Gelu, GradientCheck) {
  const std::size_t n = 11;
  std::vector<double> x(n), g(n), out(n);
  fill_pseudo_random(x.data(), n, 27, 4.0);
  fill_pseudo_random(g.data(), n, 28);
  auto loss = [&] {
    attnlab::kernels::gelu_forward(out.data(), x.data(), n);
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += out[i] * g[i];
    return s;
  };
  std::vector<double> dinp(n, -0.75);  // prefilled: backward adds
  attnlab::kernels::gelu_backward(dinp.data(), g.data(), x.data(), n);
  for (auto& v : dinp) v += 0.75;
  expect_gradient_close("dinp", dinp.data(), numerical_gradient(loss, x.data(), n));
}

// Figures from PyTorch 1.13 (nn.GELU() on 0, +-1, +-5, -10, +-0.001 and 40
// values of std 3); float32 here within 1e-5 relative (see
// expect_close_to_torch for the tail, where PyTorch itself is approximate).
TEST(Gelu, MatchesPyTorch) {
  const auto c = load_golden("kernels/layers_parity.json")["gelu"];
  const std::size_t n = c["n"];
  const auto inp = as_floats(c["inp"]), dout = as_floats(c["dout"]);
  std::vector<float> out(n), dinp(n, 0.f);
  attnlab::kernels::gelu_forward(out.data(), inp.data(), n);
  expect_close_to_torch("out", out.data(), as_floats(c["out"]));
  attnlab::kernels::gelu_backward(dinp.data(), dout.data(), inp.data(), n);
  expect_close_to_torch("dinp", dinp.data(), as_floats(c["dinp"]));
}

}  // namespace
