// The bidirectional GRU over rows of different lengths: the padding never
// reaches a valid output, and central finite differences (double) for the
// input and all eight parameter tensors. PyTorch parity (nn.GRU with
// bidirectional=True on a packed batch) is in tests/training/translation_parity_test.cpp.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "kernels/bidirectional_gru.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

struct Fixture {
  static constexpr int B = 3, S = 5, I = 3, H = 4, GH = 3 * H;
  std::vector<std::int32_t> lengths{5, 2, 3};
  std::vector<double> x = std::vector<double>(B * S * I), dout = std::vector<double>(B * S * 2 * H);
  std::vector<std::vector<double>> p;  // the eight tensors
  std::vector<double> cache = std::vector<double>(bigru_cache_size(B, S, I, H)), out = std::vector<double>(B * S * 2 * H);
  Fixture() {
    testing::fill_pseudo_random(x.data(), x.size(), 11);
    testing::fill_pseudo_random(dout.data(), dout.size(), 12);
    const int sizes[8] = {GH * I, GH * H, GH, GH, GH * I, GH * H, GH, GH};
    for (int k = 0; k < 8; ++k) {
      p.emplace_back(sizes[k]);
      testing::fill_pseudo_random(p.back().data(), sizes[k], 20 + k, 0.6);
    }
  }
  BiGruWeights<double> w() const {
    return {p[0].data(), p[1].data(), p[2].data(), p[3].data(), p[4].data(), p[5].data(), p[6].data(), p[7].data()};
  }
  double loss() {
    bigru_forward(out.data(), cache.data(), x.data(), lengths.data(), w(), B, S, I, H);
    return std::inner_product(out.begin(), out.end(), dout.begin(), 0.0);
  }
};

TEST(BidirectionalGru, PaddingNeverReachesValidOutputs) {
  Fixture f;
  f.loss();
  const std::vector<double> before = f.out;
  // change the padded inputs of row 1 (length 2): nothing valid may move
  for (int t = 2; t < Fixture::S; ++t)
    for (int k = 0; k < Fixture::I; ++k) f.x[(1 * Fixture::S + t) * Fixture::I + k] += 3.0;
  f.loss();
  for (std::size_t i = 0; i < before.size(); ++i) ASSERT_EQ(before[i], f.out[i]) << i;
  // past each length the output is zero; the backward half at t = L-1 is the
  // reverse direction's first step, so it differs from the forward half there
  for (int t = 2; t < Fixture::S; ++t)
    for (int k = 0; k < 2 * Fixture::H; ++k) EXPECT_EQ(f.out[(1 * Fixture::S + t) * 2 * Fixture::H + k], 0.0);
}

TEST(BidirectionalGru, BackwardMatchesFiniteDifferences) {
  Fixture f;
  f.loss();
  std::vector<std::vector<double>> g;
  for (const auto& t : f.p) g.emplace_back(t.size());
  std::vector<double> dx(f.x.size()), scratch(bigru_scratch_size(Fixture::B, Fixture::S, Fixture::I, Fixture::H));
  BiGruGrads<double> grads{g[0].data(), g[1].data(), g[2].data(), g[3].data(),
                           g[4].data(), g[5].data(), g[6].data(), g[7].data()};
  bigru_backward(dx.data(), grads, scratch.data(), f.dout.data(), f.cache.data(), f.x.data(), f.lengths.data(), f.w(),
                 Fixture::B, Fixture::S, Fixture::I, Fixture::H);
  auto loss = [&] { return f.loss(); };
  testing::expect_gradient_close("input", dx.data(), testing::numerical_gradient(loss, f.x.data(), f.x.size()));
  const char* names[8] = {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
                          "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"};
  for (int k = 0; k < 8; ++k)
    testing::expect_gradient_close(names[k], g[k].data(),
                                   testing::numerical_gradient(loss, f.p[k].data(), f.p[k].size()));
}

TEST(BidirectionalGru, RefusesLengthOutsideRow) {
  Fixture f;
  f.lengths[2] = 6;
  EXPECT_THROW(f.loss(), std::invalid_argument);
  f.lengths[2] = 0;
  EXPECT_THROW(f.loss(), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::kernels
