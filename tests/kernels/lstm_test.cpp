// nn.LSTM: a step by hand, finite differences of every gradient, PyTorch's
// init bit for bit, and parity with PyTorch 1.13 on (4, 8, 32) -> 64.
#include "kernels/lstm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "recurrent_test_util.hpp"

namespace attnlab::kernels {
namespace {

template <class Real>
testing::RecurrentCell<Real> lstm_cell() {
  return {"lstm", kLstmGates, &lstm_cache_size, &lstm_scratch_size, &lstm_forward<Real>,
          &lstm_backward<Real>, &lstm_init};
}

TEST(LstmTest, OneStepByHand) {
  // B = T = I = H = 1, x = 1, h0 = c0 = 0. Pre-activations (W_ih x + b_ih + b_hh;
  // W_hh h0 = 0) in gate order i, f, g, o, with l = ln 3:
  //   i = σ(l)                = 1 / (1 + 1/3)          = 0.75
  //   f = σ(5)                 (multiplies c0 = 0: no effect)
  //   g = tanh(l/4 + l/4)     = (3 - 1) / (3 + 1)      = 0.5
  //   o = σ(0 + 0 - l)        = 1 / (1 + 3)            = 0.25
  //   c = f·0 + i·g           = 0.375
  //   h = o·tanh(0.375)       = 0.25 · 0.358357398...  = 0.0895893496
  const float l = std::log(3.0f);
  testing::RecurrentLayer<float> layer(lstm_cell<float>(), 1, 1, 1, 1);
  layer.weight_ih = {l, 5.0f, 0.0f, 0.0f};
  layer.weight_hh = {9.0f, 9.0f, 9.0f, 9.0f};  // h0 = 0: unused
  layer.bias_ih = {0.0f, 0.0f, l / 4, 0.0f};
  layer.bias_hh = {0.0f, 0.0f, l / 4, -l};
  const float x = 1.0f;
  layer.forward(&x);
  EXPECT_NEAR(layer.out[0], 0.0895893496f, 1e-7);
}

class LstmGradcheckTest : public ::testing::TestWithParam<std::array<int, 4>> {};

TEST_P(LstmGradcheckTest, EveryGradientMatchesFiniteDifferences) {
  const auto [B, T, I, H] = GetParam();
  testing::check_recurrent_gradients(lstm_cell<double>(), B, T, I, H);
}

// {B, T, I, H}: the tiny case, H > I with a longer sequence, and T = 1 (no recurrence)
INSTANTIATE_TEST_SUITE_P(Shapes, LstmGradcheckTest,
                         ::testing::Values(std::array<int, 4>{2, 3, 3, 2},
                                           std::array<int, 4>{3, 4, 2, 5},
                                           std::array<int, 4>{2, 1, 2, 3}));

TEST(LstmTest, RefusesEmptySizesNamingThem) {
  std::vector<float> buf(64);
  try {
    lstm_forward<float>(buf.data(), buf.data(), buf.data(), buf.data(), buf.data(), buf.data(),
                        buf.data(), 1, 1, 1, 0);
    FAIL() << "no exception for H = 0";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("H=0"), std::string::npos) << e.what();
  }
  try {
    lstm_backward<float>(nullptr, nullptr, nullptr, nullptr, nullptr, buf.data(), buf.data(),
                         buf.data(), buf.data(), buf.data(), buf.data(), 1, 1, 0, 2);
    FAIL() << "no exception for I = 0";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("I=0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lstm_cache_size(4, 8, 0), std::invalid_argument);
  EXPECT_THROW(recurrent_param_count(kLstmGates, 0, 4), std::invalid_argument);
  EXPECT_EQ(recurrent_param_count(kLstmGates, 32, 64), 4u * 64 * (32 + 64 + 2));
}

TEST(LstmTest, GivesTheSameResultsAtAnyBufferOffset) {
  testing::check_any_buffer_offset(lstm_cell<float>());
}

TEST(LstmTest, InitMatchesTorchBitForBit) { testing::check_recurrent_init(lstm_cell<float>()); }

// Figures from PyTorch 1.13 (scripts/make_recurrent_goldens.py).
TEST(LstmTest, MatchesTorchForwardAndGradients) {
  testing::check_recurrent_parity(lstm_cell<float>());
}

}  // namespace
}  // namespace attnlab::kernels
