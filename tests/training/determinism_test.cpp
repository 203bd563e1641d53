// The same training gives the same bits on any thread, in any position of a
// table and from any heap address: each row of an experiment builds its
// model inside its task, so only addresses and threads differ between rows.
// Every step's loss and every final weight are compared bit for bit (a
// printed accuracy would hide a last-bit difference for many steps). Before
// issue 8, GELU's result depended on its buffer's alignment and this failed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "data/sequences.hpp"
#include "models/attention_classifier.hpp"
#include "models/recurrent_classifier.hpp"
#include "models/transformer_classifier.hpp"
#include "training/fit.hpp"
#include "training/parallel.hpp"

namespace attnlab::training {
namespace {

struct Run {
  std::vector<float> losses, weights;
  double accuracy = 0;
};

// Trains a fresh model (seed 0) for two epochs, with `shift` bytes allocated
// before it so that its buffers land at another address.
template <class Model, class Config>
Run train(const Config& cfg, std::size_t shift) {
  static const auto train_set = data::make_sequences(2000, 8, 0);
  static const auto val_set = data::make_sequences(512, 8, 1);
  auto skew = std::make_unique<char[]>(shift);  // lives while the model does
  random::Generator init(0);
  Model model(cfg, init, 512, 8);
  FitConfig fit_cfg;
  fit_cfg.epochs = 2;
  fit_cfg.record_losses = 1000;
  const FitResult r = fit(model, train_set, val_set, fit_cfg);
  return {r.losses, std::vector<float>(model.params.values().begin(), model.params.values().end()), r.accuracy};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
}

// Three identical rows on 1, 2 and 4 threads, each row at another address
// shift (1 to 61 bytes: every alignment a float buffer can have), all equal.
template <class Model, class Config>
void expect_same_bits_everywhere(const std::string& name, const Config& cfg) {
  std::vector<Run> reference;
  for (int jobs : {1, 2, 4}) {
    std::vector<Run> rows(3);
    run_parallel(3, jobs, [&](int i) { rows[i] = train<Model>(cfg, 1 + 20 * i + 4 * jobs); });
    for (int i = 0; i < 3; ++i) {
      const Run& want = reference.empty() ? rows[0] : reference[0];
      ASSERT_EQ(rows[i].losses.size(), 2u * 32u) << name;  // 2 epochs of 2000 / 64 batches
      EXPECT_TRUE(same_bits(rows[i].losses, want.losses)) << name << ": row " << i << " with -j " << jobs;
      EXPECT_TRUE(same_bits(rows[i].weights, want.weights)) << name << ": row " << i << " with -j " << jobs;
      EXPECT_EQ(rows[i].accuracy, want.accuracy) << name;
    }
    if (reference.empty()) reference = rows;
  }
}

TEST(Determinism, TransformerWithGeluAndDropout) {
  models::TransformerClassifierConfig cfg;
  cfg.n_blocks = 1;
  expect_same_bits_everywhere<models::TransformerClassifier>("attention, 1 block", cfg);
}

TEST(Determinism, Lstm) {
  expect_same_bits_everywhere<models::RecurrentClassifier>("LSTM", models::RecurrentClassifierConfig{});
}

TEST(Determinism, OneHeadAttentionClassifier) {
  models::AttentionClassifierConfig cfg;
  cfg.n_heads = 1;  // head size 32: the compile-time D = 32 loops
  expect_same_bits_everywhere<models::AttentionClassifier>("one-head attention", cfg);
}

}  // namespace
}  // namespace attnlab::training
