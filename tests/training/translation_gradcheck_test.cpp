// Finite differences for the whole decoder of the translation models: the
// loss of a batch of sentences of different lengths (so padding, the key
// padding mask and ignore_index all take part), through every decoder step
// (attention, the GRU cell, the output layer, the target embedding) and back
// into the encoder, against Seq2Seq::train_step's gradient. The model is
// float32, so the differences are taken in float with a wide step; each
// tensor is probed at its largest gradient and at a few other entries.
// (The kernels underneath have their own double-precision checks:
// gru_cell_test, bidirectional_gru_test, dot_attention_test and issue 12's
// additive attention tests.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/translation.hpp"
#include "models/seq2seq.hpp"
#include "training/fit_translation.hpp"

namespace attnlab::models {
namespace {

class DecoderGradcheck : public ::testing::TestWithParam<Seq2SeqKind> {};

TEST_P(DecoderGradcheck, EveryTensorMatchesFiniteDifferences) {
  Seq2SeqConfig cfg;
  cfg.kind = GetParam();
  cfg.vocab = data::kFirstWord + 5;
  cfg.embed = 4;
  cfg.hidden = 5;
  cfg.attn = 6;
  random::Generator init(3);
  Seq2Seq model(cfg, init, 4, 6);
  // four pairs of lengths 2..6 cut to their longest: padding in every step
  const auto pairs = data::make_translation(4, 2, 6, data::TranslationTask::Translation, 5, 11);
  std::vector<std::int64_t> rows{0, 1, 2, 3};
  training::PairBatch batch;
  training::gather_pairs(batch, pairs, rows.data(), 4);
  ASSERT_LT(*std::min_element(batch.lengths.begin(), batch.lengths.end()), batch.S) << "the batch needs padding";
  const Seq2SeqBatch view{batch.src.data(), batch.lengths.data(), batch.tgt_in.data(), batch.tgt_out.data(), 4,
                          batch.S};
  // At initialisation the alignment is nearly uniform and W_a's gradient is
  // ~1e-4, below what float differences resolve; sharper scores make every
  // tensor's gradient large enough to be checked.
  for (const auto& t : model.params.info())
    if (t.name == "W_a.weight" || t.name == "U_a.weight" || t.name == "v_a.weight")
      for (std::size_t k = 0; k < t.size; ++k) model.params.values()[t.offset + k] *= 4.0f;
  random::Generator g(0);
  model.params.zero_grad();
  model.train_step(view, 1.0, g);
  const std::vector<float> analytic = model.params.grads();
  auto loss = [&] {
    model.params.zero_grad();
    return static_cast<double>(model.train_step(view, 1.0, g));
  };
  const double eps = 4e-3;
  int probed = 0;
  for (const auto& t : model.params.info()) {
    std::vector<std::size_t> at{t.offset + t.size / 3, t.offset + (2 * t.size) / 3};
    std::size_t largest = t.offset;
    for (std::size_t k = t.offset; k < t.offset + t.size; ++k)
      if (std::abs(analytic[k]) > std::abs(analytic[largest])) largest = k;
    at.push_back(largest);
    for (std::size_t k : at) {
      float& w = model.params.values()[k];
      const float saved = w;
      w = saved + static_cast<float>(eps);
      const double up = loss();
      w = saved - static_cast<float>(eps);
      const double down = loss();
      w = saved;
      const double numerical = (up - down) / (2 * eps);
      EXPECT_NEAR(analytic[k], numerical, 1e-4 + 0.03 * std::abs(numerical))
          << t.name << "[" << k - t.offset << "]";
      ++probed;
    }
    EXPECT_GT(std::abs(analytic[largest]), 5e-4) << t.name << " gets a gradient";
  }
  EXPECT_GE(probed, 3 * 10);
}

// The run's memory estimate (experiments/translation.cpp) counts what the
// constructor allocates, without building the model.
TEST_P(DecoderGradcheck, MemoryEstimateIsWhatTheModelHolds) {
  Seq2SeqConfig cfg;
  cfg.kind = GetParam();
  cfg.vocab = 13;
  cfg.embed = 7;
  cfg.hidden = 9;
  cfg.attn = 5;
  random::Generator init(0);
  Seq2Seq model(cfg, init, 17, 11);
  EXPECT_EQ(Seq2Seq::parameter_count(cfg), model.params.count());
  EXPECT_EQ(Seq2Seq::memory_bytes(cfg, 17, 11), model.buffer_bytes());
  EXPECT_GT(model.buffer_bytes(), 17u * 11 * 9 * sizeof(float));
}

INSTANTIATE_TEST_SUITE_P(Models, DecoderGradcheck,
                         ::testing::Values(Seq2SeqKind::rnnenc, Seq2SeqKind::additive, Seq2SeqKind::dot),
                         [](const auto& info) {
                           return std::string(info.param == Seq2SeqKind::rnnenc     ? "rnnenc"
                                              : info.param == Seq2SeqKind::additive ? "additive"
                                                                                    : "dot");
                         });

}  // namespace
}  // namespace attnlab::models
