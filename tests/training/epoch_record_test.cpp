// fit()'s record of each epoch, for learning curves: the mean step loss and
// the validation accuracy after the epoch. Evaluating between epochs draws
// nothing from the generator and touches no parameter, so a longer run
// passes through exactly the states of a shorter one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "data/sequences.hpp"
#include "models/attention_classifier.hpp"
#include "training/fit.hpp"

namespace attnlab::testing {
namespace {

using namespace attnlab::training;

FitResult train(int epochs, std::vector<float>* weights = nullptr, bool eval_every_epoch = true) {
  static const auto train_set = data::make_sequences(1000, 8, 0);
  static const auto val_set = data::make_sequences(300, 8, 1);
  random::Generator init(0);
  models::AttentionClassifier model({}, init, 512, 8);
  FitConfig cfg;
  cfg.epochs = epochs;
  cfg.record_losses = 1000;
  cfg.eval_every_epoch = eval_every_epoch;
  FitResult r = fit(model, train_set, val_set, cfg);
  if (weights) weights->assign(model.params.values().begin(), model.params.values().end());
  return r;
}

TEST(EpochRecord, OneEntryPerEpochWhoseLossIsTheMeanOfItsSteps) {
  const FitResult r = train(3);
  ASSERT_EQ(r.epochs.size(), 3u);
  const int steps = 16;  // ceil(1000 / 64)
  ASSERT_EQ(r.losses.size(), 3u * steps);
  for (int e = 0; e < 3; ++e) {
    double sum = 0;
    for (int s = 0; s < steps; ++s) sum += r.losses[e * steps + s];
    EXPECT_DOUBLE_EQ(r.epochs[e].mean_loss, sum / steps) << "epoch " << e + 1;
  }
  // It learns: the second and third epochs' losses fall below the first's.
  EXPECT_LT(r.epochs[2].mean_loss, r.epochs[0].mean_loss);
  EXPECT_EQ(r.epochs.back().val_accuracy, r.accuracy);  // the last evaluation is the result
}

TEST(EpochRecord, EvaluatingBetweenEpochsChangesNothingThatFollows) {
  // Epoch 1 of a 2-epoch run is a 1-epoch run: its evaluation is that run's
  // accuracy, and the second epoch starts from the same weights and draws.
  std::vector<float> w1, w2;
  const FitResult one = train(1, &w1), two = train(2, &w2);
  ASSERT_EQ(two.epochs.size(), 2u);
  EXPECT_EQ(two.epochs[0].val_accuracy, one.accuracy);
  EXPECT_EQ(two.epochs[0].mean_loss, one.epochs[0].mean_loss);
  ASSERT_EQ(one.losses.size(), 16u);
  EXPECT_EQ(std::memcmp(one.losses.data(), two.losses.data(), 16 * sizeof(float)), 0);
  EXPECT_NE(w1, w2);  // the second epoch did train
  // The matrix work counts one evaluation, as the course's fit() does: a
  // 2-epoch run does twice the training work plus the same evaluation.
  const std::uint64_t eval = 2 * one.multiply_adds - two.multiply_adds;
  EXPECT_GT(eval, 0u);
  EXPECT_LT(eval, one.multiply_adds);
}

TEST(EpochRecord, EvaluatingOnlyAfterTheLastEpochTrainsTheSameBytes) {
  // A text table evaluates once, at the end (FitConfig::eval_every_epoch
  // false): the same weights, losses and accuracy, and NaN where no
  // evaluation ran (which the JSON record leaves out).
  std::vector<float> w_all, w_last;
  const FitResult all = train(3, &w_all), last = train(3, &w_last, false);
  EXPECT_EQ(w_all, w_last);
  ASSERT_EQ(last.epochs.size(), 3u);
  for (int e = 0; e < 3; ++e) EXPECT_EQ(last.epochs[e].mean_loss, all.epochs[e].mean_loss) << "epoch " << e + 1;
  EXPECT_TRUE(std::isnan(last.epochs[0].val_accuracy));
  EXPECT_TRUE(std::isnan(last.epochs[1].val_accuracy));
  EXPECT_EQ(last.epochs[2].val_accuracy, all.epochs[2].val_accuracy);
  EXPECT_EQ(last.accuracy, all.accuracy);
  EXPECT_EQ(last.multiply_adds, all.multiply_adds);  // only the last evaluation was ever counted
}

TEST(EpochRecord, TheTimedWorkCountsEveryEvaluation) {
  // A forward of one sequence of 8 tokens (d_model 32, 4 heads, 2 classes):
  // in_proj 8·32·96 = 24,576, scores and weights × values 2 · 4 · 8·8·8 = 4,096,
  // out_proj 8·32·32 = 8,192, head 32·2 = 64: 36,928 multiply-adds. An epoch's
  // steps take 3 forwards of the 1,000 training sequences, an evaluation one of
  // the 300 validation sequences.
  const std::uint64_t seq = 36928, epoch = 3 * 1000 * seq, eval = 300 * seq;
  const FitResult all = train(3), last = train(3, nullptr, false);
  EXPECT_EQ(all.multiply_adds, 3 * epoch + eval);  // the course's work: the last evaluation only
  EXPECT_EQ(last.multiply_adds, 3 * epoch + eval);
  EXPECT_EQ(all.timed_multiply_adds, 3 * epoch + 3 * eval);  // what its seconds did
  EXPECT_EQ(last.timed_multiply_adds, 3 * epoch + eval);
}

}  // namespace
}  // namespace attnlab::testing
