// Training and greedy evaluation of an encoder-decoder on sentence pairs:
// fit()'s recipe (AdamW, global-norm clipping, DataLoader's shuffled order
// from the re-seeded global generator) with batches cut to their longest
// sentence, teacher forcing, and exact-sentence accuracy by source length.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <cstdint>
#include <vector>

#include "data/loader_order.hpp"
#include "data/translation.hpp"
#include "optim/adamw.hpp"
#include "optim/clip_grad_norm.hpp"
#include "random/generator.hpp"
#include "training/epoch_loop.hpp"
#include "training/fit.hpp"

namespace attnlab::training {

struct TranslationFitConfig {
  int epochs = 8;
  double lr = 3e-3;
  LrSchedule lr_schedule = LrSchedule::constant;  // the learning rate over the run's steps
  int batch_size = 64;
  int eval_batch_size = 256;
  double max_norm = 1.0;
  double teacher_forcing = 1.0;  // the chance of feeding the reference word at a step
  std::uint64_t seed = 0;
  int record_losses = 0;
  std::vector<std::array<int, 2>> buckets;  // inclusive source-length ranges
  int alignment_row = 0;                     // the validation sentence whose alignment is kept
  /// As FitConfig::on_step: after every step and once at the end, on the
  /// training thread; cheap and never throwing. Empty: nothing is reported.
  std::function<void(const FitProgress&)> on_step;
};

/// fit()'s record (accuracy = exact-sentence accuracy over the whole
/// validation set, NaN when diverged; losses, first_loss, epochs, diverged,
/// seconds), so that a translation row reports as every trained row does
/// (experiments/trained_rows.hpp), plus the figures by source length.
struct TranslationFitResult : FitResult {
  std::vector<double> bucket_accuracy;  // exact-sentence accuracy per bucket (NaN: empty bucket or diverged)
  std::vector<int> bucket_count;
  std::vector<std::int32_t> alignment_pred;  // (L + 1) greedy output of alignment_row
  std::vector<float> alignment;              // (L + 1, L) its weights, when the model has any
};

/// Rows order[0..b) of `d` into the batch buffers, cut to their longest source.
struct PairBatch {
  std::vector<std::int32_t> src, lengths, tgt_in, tgt_out;
  int B = 0, S = 0;
};
void gather_pairs(PairBatch& batch, const data::TranslationPairs& d, const std::int64_t* order, int b);

/// Whether the first len+1 predictions of each row equal tgt_out (words and EOS).
bool exact_sentence(const std::int32_t* pred, const std::int32_t* tgt_out, int len);

/// The model must offer params, train_step(Seq2SeqBatch-like, ratio, g),
/// greedy(src, lengths, B, S, steps, pred, weights), has_attention(); its
/// buffers must hold batch_size and eval_batch_size rows of val.max_len words.
template <class Model, class BatchView>
TranslationFitResult fit_translation(Model& model, const data::TranslationPairs& train,
                                     const data::TranslationPairs& val, const TranslationFitConfig& cfg) {
  use_single_threaded_blas();
  const auto start = std::chrono::steady_clock::now();
  random::Generator g(cfg.seed);
  TranslationFitResult result;
  PairBatch batch;
  EpochLoop loop({.epochs = cfg.epochs, .lr = cfg.lr, .batch_size = cfg.batch_size, .max_norm = cfg.max_norm,
                  .record_losses = cfg.record_losses, .lr_schedule = cfg.lr_schedule, .on_step = &cfg.on_step},
                 train.n);
  loop.run(
      g, model.params, result,
      [&](const std::int64_t* rows, int n) {
        gather_pairs(batch, train, rows, n);
        model.params.zero_grad();
        const BatchView view{batch.src.data(), batch.lengths.data(), batch.tgt_in.data(), batch.tgt_out.data(),
                             batch.B, batch.S};
        return model.train_step(view, cfg.teacher_forcing, g);
      },
      [](int) { return std::numeric_limits<double>::quiet_NaN(); });  // measured once, by length, below
  if (result.diverged) {
    result.bucket_accuracy.assign(cfg.buckets.size(), std::numeric_limits<double>::quiet_NaN());
    result.bucket_count.assign(cfg.buckets.size(), 0);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  // greedy decoding of the validation set, in order, for each batch's longest sentence + 1 steps
  const int max_steps = val.max_len + 1;
  std::vector<int> right(cfg.buckets.size(), 0);
  long all_right = 0;  // every sentence, whatever its bucket
  result.bucket_count.assign(cfg.buckets.size(), 0);
  std::vector<std::int64_t> order(val.n);
  for (int i = 0; i < val.n; ++i) order[i] = i;
  std::vector<std::int32_t> pred(static_cast<std::size_t>(cfg.eval_batch_size) * max_steps);
  std::vector<float> weights(static_cast<std::size_t>(cfg.eval_batch_size) * max_steps * val.max_len);
  for (int first = 0; first < val.n; first += cfg.eval_batch_size) {
    const int b = std::min(cfg.eval_batch_size, val.n - first);
    gather_pairs(batch, val, order.data() + first, b);
    const int T = batch.S + 1;
    model.greedy(batch.src.data(), batch.lengths.data(), b, batch.S, T, pred.data(), weights.data());
    for (int r = 0; r < b; ++r) {
      const int L = batch.lengths[r];
      const bool ok = exact_sentence(pred.data() + static_cast<std::size_t>(r) * T,
                                     batch.tgt_out.data() + static_cast<std::size_t>(r) * T, L);
      all_right += ok ? 1 : 0;
      for (std::size_t k = 0; k < cfg.buckets.size(); ++k)
        if (L >= cfg.buckets[k][0] && L <= cfg.buckets[k][1]) {
          ++result.bucket_count[k];
          right[k] += ok ? 1 : 0;
        }
      if (first + r == cfg.alignment_row) {
        result.alignment_pred.assign(pred.begin() + static_cast<std::ptrdiff_t>(r) * T,
                                     pred.begin() + static_cast<std::ptrdiff_t>(r) * T + L + 1);
        if (model.has_attention())
          for (int i = 0; i <= L; ++i)
            for (int j = 0; j < L; ++j)
              result.alignment.push_back(weights[(static_cast<std::size_t>(r) * T + i) * batch.S + j]);
      }
    }
  }
  result.accuracy = static_cast<double>(all_right) / val.n;
  for (std::size_t k = 0; k < cfg.buckets.size(); ++k)
    result.bucket_accuracy.push_back(result.bucket_count[k] ? static_cast<double>(right[k]) / result.bucket_count[k]
                                                            : std::numeric_limits<double>::quiet_NaN());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace attnlab::training
