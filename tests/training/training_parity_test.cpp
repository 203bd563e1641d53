// fit() against PyTorch: from identical initial weights, data, batch order
// and dropout masks, the losses of the first 100 training steps of each
// course model equal PyTorch 1.13's within 1e-4 relative at every step.
// The reference losses come from data/models/*.json, written by
// scripts/make_model_goldens.py running the course's fit() loop.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "data/sequences.hpp"
#include "models/attention_classifier.hpp"
#include "models/recurrent_classifier.hpp"
#include "models/transformer_classifier.hpp"
#include "support/golden.hpp"
#include "training/fit.hpp"

namespace attnlab::testing {
namespace {

template <class Model>
void check_losses(const std::string& file, Model& model) {
  const auto want = as_floats(load_golden("models/" + file).at("losses"));
  ASSERT_EQ(want.size(), 100u);
  const auto train = data::make_sequences(8000, 8, 0);
  const auto val = data::make_sequences(64, 8, 1);
  training::FitConfig fit;
  fit.epochs = 1;  // 125 steps of 64: the first 100 lie in the first epoch
  fit.record_losses = 100;
  const auto result = training::fit(model, train, val, fit);
  ASSERT_EQ(result.losses.size(), 100u);
  double worst = 0;
  for (std::size_t step = 0; step < want.size(); ++step) {
    ASSERT_NEAR(result.losses[step], want[step], 1e-4 * std::abs(want[step]))
        << "step " << step << " (PyTorch " << want[step] << ")";
    worst = std::max(worst, std::abs(double{result.losses[step]} - want[step]) / std::abs(want[step]));
  }
  ::testing::Test::RecordProperty("worst_relative_error", std::to_string(worst));
  std::printf("%s: worst relative loss error over 100 steps %.2e\n", file.c_str(), worst);
}

TEST(TrainingParity, PositionsModelWithPositions) {
  random::Generator init(0);
  models::AttentionClassifier model({}, init, 512, 8);
  check_losses("positions_learned.json", model);
}

TEST(TrainingParity, PositionsModelWithoutPositions) {
  models::AttentionClassifierConfig cfg;
  cfg.use_positions = false;
  random::Generator init(0);
  models::AttentionClassifier model(cfg, init, 512, 8);
  check_losses("positions_none.json", model);
}

TEST(TrainingParity, Lstm) {
  random::Generator init(0);
  models::RecurrentClassifier model({}, init, 512, 8);
  check_losses("lstm.json", model);
}

TEST(TrainingParity, AttentionOneBlockWithDropout) {
  models::TransformerClassifierConfig cfg;
  cfg.n_blocks = 1;
  random::Generator init(0);
  models::TransformerClassifier model(cfg, init, 512, 8);
  check_losses("attention_1block.json", model);
}

TEST(TrainingParity, AttentionTwoBlocksWithDropout) {
  random::Generator init(0);
  models::TransformerClassifier model({}, init, 512, 8);
  check_losses("attention_2blocks.json", model);
}

TEST(TrainingParity, OneHeadAttentionMapModel) {
  models::AttentionClassifierConfig cfg;
  cfg.n_heads = 1;
  random::Generator init(0);
  models::AttentionClassifier model(cfg, init, 512, 8);
  check_losses("attention_map.json", model);
}

TEST(TrainingParity, PlainRnn) {
  models::RecurrentClassifierConfig cfg;
  cfg.cell = models::Cell::rnn;
  random::Generator init(0);
  models::RecurrentClassifier model(cfg, init, 512, 8);
  check_losses("rnn.json", model);
}

}  // namespace
}  // namespace attnlab::testing
