// nn.RNN (tanh): two steps by hand, finite differences of every gradient,
// PyTorch's init bit for bit, and parity with PyTorch 1.13 on (4, 8, 32) -> 64.
#include "kernels/rnn.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "recurrent_test_util.hpp"

namespace attnlab::kernels {
namespace {

template <class Real>
testing::RecurrentCell<Real> rnn_cell() {
  return {"rnn", kRnnGates, &rnn_cache_size, &rnn_scratch_size, &rnn_forward<Real>,
          &rnn_backward<Real>, &rnn_init};
}

TEST(RnnTest, TwoStepsByHand) {
  // B = I = H = 1, T = 2, l = ln 3, W_ih = 1, W_hh = 2l, b_ih = 1/4, b_hh = -1/4,
  // x = (l/2, 0), h0 = 0; tanh(a) = (e^2a - 1) / (e^2a + 1):
  //   h1 = tanh(1·l/2 + 1/4 - 1/4 + 2l·0) = tanh(l/2) = (3 - 1) / (3 + 1) = 0.5
  //   h2 = tanh(1·0 + 0 + 2l·0.5)         = tanh(l)   = (9 - 1) / (9 + 1) = 0.8
  const float l = std::log(3.0f);
  testing::RecurrentLayer<float> layer(rnn_cell<float>(), 1, 2, 1, 1);
  layer.weight_ih = {1.0f};
  layer.weight_hh = {2 * l};
  layer.bias_ih = {0.25f};
  layer.bias_hh = {-0.25f};
  const std::vector<float> x = {l / 2, 0.0f};
  layer.forward(x.data());
  EXPECT_NEAR(layer.out[0], 0.5f, 1e-7);
  EXPECT_NEAR(layer.out[1], 0.8f, 1e-6);
}

class RnnGradcheckTest : public ::testing::TestWithParam<std::array<int, 4>> {};

TEST_P(RnnGradcheckTest, EveryGradientMatchesFiniteDifferences) {
  const auto [B, T, I, H] = GetParam();
  testing::check_recurrent_gradients(rnn_cell<double>(), B, T, I, H);
}

// {B, T, I, H}: the tiny case, H > I with a longer sequence, and T = 1 (no recurrence)
INSTANTIATE_TEST_SUITE_P(Shapes, RnnGradcheckTest,
                         ::testing::Values(std::array<int, 4>{2, 3, 3, 2},
                                           std::array<int, 4>{3, 4, 2, 5},
                                           std::array<int, 4>{2, 1, 2, 3}));

TEST(RnnTest, RefusesEmptySizesNamingThem) {
  std::vector<float> buf(64);
  try {
    rnn_forward<float>(buf.data(), buf.data(), buf.data(), buf.data(), buf.data(), buf.data(),
                       buf.data(), 1, 1, 1, 0);
    FAIL() << "no exception for H = 0";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("H=0"), std::string::npos) << e.what();
  }
  try {
    rnn_backward<float>(nullptr, nullptr, nullptr, nullptr, nullptr, buf.data(), buf.data(),
                        buf.data(), buf.data(), buf.data(), buf.data(), 1, 1, 0, 2);
    FAIL() << "no exception for I = 0";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("I=0"), std::string::npos) << e.what();
  }
  random::Generator gen(0);
  float w = 0;
  EXPECT_THROW(rnn_init(gen, &w, &w, &w, &w, 4, 0), std::invalid_argument);
}

TEST(RnnTest, GivesTheSameResultsAtAnyBufferOffset) {
  testing::check_any_buffer_offset(rnn_cell<float>());
}

TEST(RnnTest, InitMatchesTorchBitForBit) { testing::check_recurrent_init(rnn_cell<float>()); }

// Figures from PyTorch 1.13 (scripts/make_recurrent_goldens.py).
TEST(RnnTest, MatchesTorchForwardAndGradients) {
  testing::check_recurrent_parity(rnn_cell<float>());
}

}  // namespace
}  // namespace attnlab::kernels
