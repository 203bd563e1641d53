// nn.GRU: a step by hand, finite differences of every gradient, PyTorch's
// init bit for bit, and parity with PyTorch 1.13 on (4, 8, 32) -> 64.
#include "kernels/gru.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "recurrent_test_util.hpp"

namespace attnlab::kernels {
namespace {

template <class Real>
testing::RecurrentCell<Real> gru_cell() {
  return {"gru", kGruGates, &gru_cache_size, &gru_scratch_size, &gru_forward<Real>,
          &gru_backward<Real>, &gru_init};
}

TEST(GruTest, OneStepByHand) {
  // B = T = I = H = 1, x = 1, h0 = 0, l = ln 3; gate order r, z, n:
  //   r = σ(l·1 + 0 + 0)                 = 1 / (1 + 1/3) = 0.75
  //   z = σ(0)                           = 0.5
  //   n = tanh(0 + 0 + r·(W_hn·0 + 2l/3)) = tanh(l/2) = (3 - 1) / (3 + 1) = 0.5
  //   h = (1 - z)·n + z·h0               = 0.25
  // With b_hn outside the reset product n would be tanh(2l/3) = 0.6245 and
  // h = 0.3123, so this also pins where b_hn goes.
  const float l = std::log(3.0f);
  testing::RecurrentLayer<float> layer(gru_cell<float>(), 1, 1, 1, 1);
  layer.weight_ih = {l, 0.0f, 0.0f};
  layer.weight_hh = {7.0f, 7.0f, 7.0f};  // h0 = 0: unused
  layer.bias_ih = {0.0f, 0.0f, 0.0f};
  layer.bias_hh = {0.0f, 0.0f, 2 * l / 3};
  const float x = 1.0f;
  layer.forward(&x);
  EXPECT_NEAR(layer.out[0], 0.25f, 1e-7);
}

class GruGradcheckTest : public ::testing::TestWithParam<std::array<int, 4>> {};

TEST_P(GruGradcheckTest, EveryGradientMatchesFiniteDifferences) {
  const auto [B, T, I, H] = GetParam();
  testing::check_recurrent_gradients(gru_cell<double>(), B, T, I, H);
}

// {B, T, I, H}: the tiny case, H > I with a longer sequence, and T = 1 (no recurrence)
INSTANTIATE_TEST_SUITE_P(Shapes, GruGradcheckTest,
                         ::testing::Values(std::array<int, 4>{2, 3, 3, 2},
                                           std::array<int, 4>{3, 4, 2, 5},
                                           std::array<int, 4>{2, 1, 2, 3}));

TEST(GruTest, RefusesEmptySizesNamingThem) {
  std::vector<float> buf(64);
  try {
    gru_forward<float>(buf.data(), buf.data(), buf.data(), buf.data(), buf.data(), buf.data(),
                       buf.data(), 1, 1, 1, 0);
    FAIL() << "no exception for H = 0";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("H=0"), std::string::npos) << e.what();
  }
  try {
    gru_forward<float>(buf.data(), buf.data(), buf.data(), buf.data(), buf.data(), buf.data(),
                       buf.data(), 1, 1, 0, 2);
    FAIL() << "no exception for I = 0";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("I=0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gru_scratch_size(4, 8, 0), std::invalid_argument);
}

TEST(GruTest, GivesTheSameResultsAtAnyBufferOffset) {
  testing::check_any_buffer_offset(gru_cell<float>());
}

TEST(GruTest, InitMatchesTorchBitForBit) { testing::check_recurrent_init(gru_cell<float>()); }

// Figures from PyTorch 1.13 (scripts/make_recurrent_goldens.py).
TEST(GruTest, MatchesTorchForwardAndGradients) {
  testing::check_recurrent_parity(gru_cell<float>());
}

}  // namespace
}  // namespace attnlab::kernels
