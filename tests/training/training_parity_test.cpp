// fit() against PyTorch: from identical initial weights, data, batch order
// and dropout masks, every step's loss over two epochs (250 steps, so the
// second epoch's shuffle too) equals PyTorch 1.13's within a bound a small
// multiple of what is measured. The reference losses come from
// data/models/*.json, written by scripts/make_model_goldens.py.
//
// Measured relative errors (this machine, the Haswell kernels): at most
// 1.8e-7 in the first epoch for every model, i.e. one or two float32 ulps of
// the loss; in the second, some trajectories drift apart slowly (figures per
// model below; both GELUs take the same 1.5e-7 erf polynomial, but
// PyTorch's exp inside it is Sleef's and ours Cephes'). The two-block model
// parts after step 164: 3.7e-7 at 165, 1.7e-6 at 173, 3e-5 at 190, 1.5e-3 at
// 230; chaos, not a bug, so it is held to PyTorch only up to step 164.
//
// At these bounds AdamW's eps x 100, a learning rate 0.1 % off and
// beta2 = 0.998 each fail (the old 1e-4 let all three pass).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "data/sequences.hpp"
#include "models/attention_classifier.hpp"
#include "models/recurrent_classifier.hpp"
#include "models/transformer_classifier.hpp"
#include "support/golden.hpp"
#include "training/fit.hpp"

namespace attnlab::testing {
namespace {

// Every step of the first epoch within 5e-7 (2.8 x the worst measured
// 1.8e-7); steps 125 .. last_step within second_epoch.
struct LossBounds {
  double second_epoch;
  int last_step = 249;
};
constexpr double kFirstEpoch = 5e-7;
// Sanitizer builds (Debug, instrumented, no FMA contraction) keep the first
// epoch within 1.8e-7 too, but drift otherwise in the second: the one-block
// model measured 1.6e-6 at step 240 there. Their second-epoch bounds are 10x.
#ifdef ATTNLAB_SANITIZED_BUILD
constexpr double kSecondEpochSlack = 10;
#else
constexpr double kSecondEpochSlack = 1;
#endif

template <class Model>
void check_losses(const std::string& file, Model& model, LossBounds bounds) {
  const auto want = as_floats(load_golden("models/" + file).at("losses"));
  ASSERT_EQ(want.size(), 250u);
  const auto train = data::make_sequences(8000, 8, 0);
  const auto val = data::make_sequences(64, 8, 1);
  training::FitConfig fit;
  fit.epochs = 2;  // 125 steps of 64 each
  fit.record_losses = 250;
  const auto result = training::fit(model, train, val, fit);
  ASSERT_EQ(result.losses.size(), 250u);
  double worst[2] = {0, 0};
  for (int step = 0; step <= bounds.last_step; ++step) {
    ASSERT_TRUE(std::isfinite(result.losses[step])) << "step " << step;
    const double bound = step < 125 ? kFirstEpoch : bounds.second_epoch * kSecondEpochSlack;
    ASSERT_NEAR(result.losses[step], want[step], bound * std::abs(want[step]))
        << file << ", step " << step << " (PyTorch " << want[step] << ")";
    double& w = worst[step < 125 ? 0 : 1];
    w = std::max(w, std::abs(double{result.losses[step]} - want[step]) / std::abs(want[step]));
  }
  ::testing::Test::RecordProperty("worst_relative_error_epoch_1", std::to_string(worst[0]));
  ::testing::Test::RecordProperty("worst_relative_error_epoch_2", std::to_string(worst[1]));
  std::printf("%s: worst relative loss error %.2e in epoch 1, %.2e in steps 125-%d\n", file.c_str(), worst[0],
              worst[1], bounds.last_step);
}

TEST(TrainingParity, PositionsModelWithPositions) {
  random::Generator init(0);
  models::AttentionClassifier model({}, init, 512, 8);
  check_losses("positions_learned.json", model, {.second_epoch = 5e-6});  // measured 1.9e-6
}

TEST(TrainingParity, PositionsModelWithoutPositions) {
  models::AttentionClassifierConfig cfg;
  cfg.use_positions = false;
  random::Generator init(0);
  models::AttentionClassifier model(cfg, init, 512, 8);
  check_losses("positions_none.json", model, {.second_epoch = 5e-7});  // measured 1.8e-7
}

TEST(TrainingParity, Lstm) {
  random::Generator init(0);
  models::RecurrentClassifier model({}, init, 512, 8);
  check_losses("lstm.json", model, {.second_epoch = 5e-7});  // measured 1.7e-7
}

TEST(TrainingParity, AttentionOneBlockWithDropout) {
  models::TransformerClassifierConfig cfg;
  cfg.n_blocks = 1;
  random::Generator init(0);
  models::TransformerClassifier model(cfg, init, 512, 8);
  check_losses("attention_1block.json", model, {.second_epoch = 1.5e-6});  // measured 6.8e-7
}

TEST(TrainingParity, AttentionTwoBlocksWithDropout) {
  random::Generator init(0);
  models::TransformerClassifier model({}, init, 512, 8);
  check_losses("attention_2blocks.json", model, {.second_epoch = 5e-7, .last_step = 164});  // 1.9e-7
}

TEST(TrainingParity, OneHeadAttentionMapModel) {
  models::AttentionClassifierConfig cfg;
  cfg.n_heads = 1;
  random::Generator init(0);
  models::AttentionClassifier model(cfg, init, 512, 8);
  check_losses("attention_map.json", model, {.second_epoch = 3e-6});  // measured 1.2e-6
}

TEST(TrainingParity, PlainRnn) {
  models::RecurrentClassifierConfig cfg;
  cfg.cell = models::Cell::rnn;
  random::Generator init(0);
  models::RecurrentClassifier model(cfg, init, 512, 8);
  check_losses("rnn.json", model, {.second_epoch = 5e-7});  // measured 1.7e-7
}

}  // namespace
}  // namespace attnlab::testing
