// A split training step (training/split_step.hpp): the batch in two fixed
// halves gives the whole batch's loss and gradients up to the rounding of
// their sums, draws exactly what the unsplit step draws, and computes the
// same bytes on one thread as with its second half on another.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "data/loader_order.hpp"
#include "data/sequences.hpp"
#include "models/attention_classifier.hpp"
#include "models/recurrent_classifier.hpp"
#include "models/transformer_classifier.hpp"
#include "training/batch.hpp"
#include "training/fit.hpp"
#include "training/parallel.hpp"
#include "training/spare_cores.hpp"
#include "training/split_step.hpp"

namespace attnlab::training {
namespace {

static_assert(SplittableModel<models::RecurrentClassifier>);
static_assert(SplittableModel<models::AttentionClassifier>);
static_assert(SplittableModel<models::TransformerClassifier>);

struct Step {
  float loss = 0;
  std::vector<float> grads;
  std::uint32_t next_word = 0;  // the generator's next draw: what the step consumed
};

// One step on the first B sequences of a fixed set, from a model built with
// seed 0 and a step generator seeded 7; `spare` cores are lent for it.
template <class Model, class Config>
Step one_step(const Config& cfg, int B, bool split, int spare) {
  static const auto data = data::make_sequences(300, 8, 0);
  random::Generator init(0);
  Model model(cfg, init, 64, 8);
  Batch batch(64, 8);
  gather_range(batch, data, 0, B);
  random::Generator g(7);
  StepRunner<Model> runner(model, split, 64);
  SpareCores lent(spare);
  model.params.zero_grad();
  Step s;
  s.loss = runner(batch.tokens.data(), batch.labels.data(), B, 8, g);
  s.grads = model.params.grads();
  s.next_word = g.random();
  return s;
}

template <class Model, class Config>
void expect_split_matches_whole(const char* name, const Config& cfg) {
  for (int B : {64, 37, 2, 1}) {  // even, odd, the smallest split, none to split
    const Step whole = one_step<Model>(cfg, B, false, 0);
    const Step alone = one_step<Model>(cfg, B, true, 0);
    const Step beside = one_step<Model>(cfg, B, true, 1);
    // The same draws: the next epoch's order does not depend on the split.
    EXPECT_EQ(alone.next_word, whole.next_word) << name << " B=" << B;
    EXPECT_NEAR(alone.loss, whole.loss, 1e-6 * std::abs(whole.loss)) << name << " B=" << B;
    double scale = 0;
    for (float v : whole.grads) scale = std::max(scale, std::abs(double(v)));
    ASSERT_GT(scale, 0.0) << name;
    ASSERT_EQ(alone.grads.size(), whole.grads.size());
    for (std::size_t i = 0; i < whole.grads.size(); ++i)
      ASSERT_NEAR(alone.grads[i], whole.grads[i], 1e-5 * scale) << name << " B=" << B << " gradient " << i;
    if (B == 1) {  // nothing to split: the unsplit step itself
      EXPECT_EQ(std::memcmp(alone.grads.data(), whole.grads.data(), whole.grads.size() * sizeof(float)), 0) << name;
    }
    // One thread or two: the same bytes.
    EXPECT_EQ(std::memcmp(&alone.loss, &beside.loss, sizeof(float)), 0) << name << " B=" << B;
    EXPECT_EQ(std::memcmp(alone.grads.data(), beside.grads.data(), alone.grads.size() * sizeof(float)), 0)
        << name << " B=" << B;
  }
}

TEST(SplitStep, LstmMatchesTheWholeBatch) {
  expect_split_matches_whole<models::RecurrentClassifier>("lstm", models::RecurrentClassifierConfig{});
}

TEST(SplitStep, AttentionClassifierMatchesTheWholeBatch) {
  expect_split_matches_whole<models::AttentionClassifier>("attention", models::AttentionClassifierConfig{});
}

TEST(SplitStep, TransformerWithDropoutMatchesTheWholeBatch) {
  models::TransformerClassifierConfig cfg;  // dropout 0.1: the halves must take the whole batch's masks
  expect_split_matches_whole<models::TransformerClassifier>("transformer", cfg);
}

template <class Model, class Config>
void expect_replica_trains_like_a_full_copy(const char* name, const Config& cfg) {
  // The second half trains on replica(32), whose buffers hold 32 sequences
  // where the model's hold 256: the same weights and the same bytes as a
  // full copy of the model.
  static const auto data = data::make_sequences(300, 8, 0);
  random::Generator init(0), g(7);
  Model model(cfg, init, 256, 8);
  Model copy = model, replica = model.replica(32);
  ASSERT_EQ(replica.params.values(), model.params.values()) << name;
  Batch batch(64, 8);
  gather_range(batch, data, 0, 64);
  model.draw_step(g, 64);
  for (Model* m : {&copy, &replica}) {
    m->take_step_draws(model, 32, 32);
    m->params.zero_grad();
  }
  const float l_copy = copy.train_step_drawn(batch.tokens.data() + 32 * 8, batch.labels.data() + 32, 32);
  const float l_replica = replica.train_step_drawn(batch.tokens.data() + 32 * 8, batch.labels.data() + 32, 32);
  EXPECT_EQ(std::memcmp(&l_copy, &l_replica, sizeof(float)), 0) << name;
  const auto& a = copy.params.grads();
  const auto& b = replica.params.grads();
  EXPECT_NE(std::count(a.begin(), a.end(), 0.0f), static_cast<long>(a.size())) << name;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << name;
  EXPECT_THROW(replica.train_step_drawn(batch.tokens.data(), batch.labels.data(), 33), std::invalid_argument) << name;
}

TEST(SplitStep, TheReplicaForHalfABatchTrainsLikeAFullCopy) {
  expect_replica_trains_like_a_full_copy<models::RecurrentClassifier>("lstm", models::RecurrentClassifierConfig{});
  expect_replica_trains_like_a_full_copy<models::AttentionClassifier>("attention", models::AttentionClassifierConfig{});
  expect_replica_trains_like_a_full_copy<models::TransformerClassifier>("transformer",
                                                                        models::TransformerClassifierConfig{});
}

TEST(SplitStep, HalvesThatTookTheWrongMasksWouldDiffer) {
  // The check above can fail: a step whose masks are drawn afresh for each
  // half (the draws a naive split would make) is far from the whole batch.
  static const auto data = data::make_sequences(300, 8, 0);
  random::Generator init(0);
  models::TransformerClassifier whole({}, init, 64, 8);
  models::TransformerClassifier halves = whole;
  Batch batch(64, 8);
  gather_range(batch, data, 0, 64);
  random::Generator g1(7), g2(7);
  whole.params.zero_grad();
  const float l = whole.train_step(batch.tokens.data(), batch.labels.data(), 64, g1);
  halves.params.zero_grad();
  const float l0 = halves.train_step(batch.tokens.data(), batch.labels.data(), 32, g2);
  const float l1 = halves.train_step(batch.tokens.data() + 32 * 8, batch.labels.data() + 32, 32, g2);
  EXPECT_GT(std::abs(0.5f * (l0 + l1) - l), 1e-4f);
}

TEST(SplitStep, FitGivesTheSameBytesOnOneThreadOrTwo) {
  const auto train_set = data::make_sequences(1000, 8, 0);
  const auto val_set = data::make_sequences(256, 8, 1);
  auto run = [&](int jobs, bool split) {
    random::Generator init(0);
    models::TransformerClassifier model({}, init, 256, 8);
    FitConfig cfg;
    cfg.epochs = 2;
    cfg.record_losses = 100;
    cfg.split_batch = split;
    FitResult r;
    run_parallel(1, jobs, [&](int) { r = fit(model, train_set, val_set, cfg); });
    return std::make_pair(r, model.params.values());
  };
  const auto [one, w1] = run(1, true);
  const auto [two, w2] = run(2, true);
  const auto [whole, w0] = run(2, false);
  ASSERT_EQ(one.losses.size(), 32u);
  EXPECT_EQ(std::memcmp(one.losses.data(), two.losses.data(), one.losses.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(w1.data(), w2.data(), w1.size() * sizeof(float)), 0);
  EXPECT_EQ(one.accuracy, two.accuracy);
  // Split or not, the same training up to rounding: the first step's loss
  // (the same weights, the same masks) agrees to float precision.
  EXPECT_NEAR(one.losses[0], whole.losses[0], 1e-6);
  EXPECT_NE(std::memcmp(w1.data(), w0.data(), w1.size() * sizeof(float)), 0) << "the split changed nothing at all";
}

TEST(SpareCores, RunParallelLendsTheThreadsNoTaskUses) {
  const int before = spare_cores();  // 0 unless a test elsewhere leaked a loan
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int seen = -1;
  run_parallel(1, 2, [&](int) { seen = spare_cores(); });
  EXPECT_EQ(seen, before + std::min(2, hardware) - 1);  // two threads given, one task
  run_parallel(1, 1000, [&](int) { seen = spare_cores(); });
  EXPECT_EQ(seen, before + hardware - 1);  // never more than the machine has
  std::vector<int> seen_by(3, -1);
  run_parallel(3, 1, [&](int i) { seen_by[i] = spare_cores(); });
  EXPECT_EQ(seen_by, std::vector<int>(3, before));  // one thread: nothing to lend
  EXPECT_EQ(spare_cores(), before);
  {
    SpareCores one(1);
    EXPECT_EQ(spare_cores(), before + 1);
    EXPECT_TRUE(borrow_spare_core());
    EXPECT_EQ(spare_cores(), before);
    return_spare_core();
  }
  EXPECT_EQ(spare_cores(), before);
}

}  // namespace
}  // namespace attnlab::training
