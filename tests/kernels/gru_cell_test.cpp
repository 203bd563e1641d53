// nn.GRUCell's step: a forward case by hand and central finite differences
// (double precision) for every input and parameter of the backward pass.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/gru_cell.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

TEST(GruCell, OneUnitByHand) {
  // I = H = 1, all weights 0.5, biases 0: r = z = σ(0.5·1 + 0.5·1) = σ(1),
  // n = tanh(0.5 + r·0.5), h' = (1 - n)·z + n for x = h = 1.
  const double w_ih[3] = {0.5, 0.5, 0.5}, w_hh[3] = {0.5, 0.5, 0.5}, b[3] = {0, 0, 0};
  const double x = 1, h = 1;
  std::vector<double> cache(gru_cell_cache_size(1, 1));
  double out = 0;
  gru_cell_forward(&out, cache.data(), &x, &h, w_ih, w_hh, b, b, 1, 1, 1);
  const double s = 1 / (1 + std::exp(-1.0)), n = std::tanh(0.5 + s * 0.5);
  EXPECT_NEAR(out, (1 - n) * s + n, 1e-15);
}

TEST(GruCell, BackwardMatchesFiniteDifferences) {
  const int B = 3, I = 4, H = 5, GH = 3 * H;
  std::vector<double> x(B * I), h(B * H), w_ih(GH * I), w_hh(GH * H), b_ih(GH), b_hh(GH), dout(B * H);
  testing::fill_pseudo_random(x.data(), x.size(), 1);
  testing::fill_pseudo_random(h.data(), h.size(), 2);
  testing::fill_pseudo_random(w_ih.data(), w_ih.size(), 3, 0.6);
  testing::fill_pseudo_random(w_hh.data(), w_hh.size(), 4, 0.6);
  testing::fill_pseudo_random(b_ih.data(), b_ih.size(), 5, 0.3);
  testing::fill_pseudo_random(b_hh.data(), b_hh.size(), 6, 0.3);
  testing::fill_pseudo_random(dout.data(), dout.size(), 7);
  std::vector<double> cache(gru_cell_cache_size(B, H)), out(B * H), scratch(gru_cell_scratch_size(B, H));
  auto loss = [&] {
    gru_cell_forward(out.data(), cache.data(), x.data(), h.data(), w_ih.data(), w_hh.data(), b_ih.data(),
                     b_hh.data(), B, I, H);
    return std::inner_product(out.begin(), out.end(), dout.begin(), 0.0);
  };
  loss();
  std::vector<double> dx(x.size()), dh(h.size()), dw_ih(w_ih.size()), dw_hh(w_hh.size()), db_ih(GH), db_hh(GH);
  gru_cell_backward(dx.data(), dh.data(), dw_ih.data(), dw_hh.data(), db_ih.data(), db_hh.data(), scratch.data(),
                    dout.data(), cache.data(), x.data(), h.data(), w_ih.data(), w_hh.data(), B, I, H);
  testing::expect_gradient_close("x", dx.data(), testing::numerical_gradient(loss, x.data(), x.size()));
  testing::expect_gradient_close("h", dh.data(), testing::numerical_gradient(loss, h.data(), h.size()));
  testing::expect_gradient_close("weight_ih", dw_ih.data(), testing::numerical_gradient(loss, w_ih.data(), w_ih.size()));
  testing::expect_gradient_close("weight_hh", dw_hh.data(), testing::numerical_gradient(loss, w_hh.data(), w_hh.size()));
  testing::expect_gradient_close("bias_ih", db_ih.data(), testing::numerical_gradient(loss, b_ih.data(), GH));
  testing::expect_gradient_close("bias_hh", db_hh.data(), testing::numerical_gradient(loss, b_hh.data(), GH));
}

TEST(GruCell, RefusesEmptySizes) {
  EXPECT_THROW(gru_cell_cache_size(0, 4), std::invalid_argument);
  EXPECT_THROW(gru_cell_scratch_size(2, 0), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::kernels
