// The course's fit(): AdamW, global-norm clipping, shuffled mini-batches,
// then accuracy on the validation set.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "data/loader_order.hpp"
#include "data/sequences.hpp"
#include "optim/adamw.hpp"
#include "optim/clip_grad_norm.hpp"
#include "random/generator.hpp"
#include "training/batch.hpp"

namespace attnlab::training {

/// fit()'s settings; defaults are the course's (shared/course/13_*.py).
struct FitConfig {
  int epochs = 10;
  double lr = 3e-3;
  int batch_size = 64;        // DataLoader(batch_size=64, shuffle=True)
  int eval_batch_size = 512;  // the validation loader's batch size
  double max_norm = 1.0;      // clip_grad_norm_(model.parameters(), 1.0)
  std::uint64_t seed = 0;     // fit() calls torch.manual_seed(0) first
  int record_losses = 0;      // keep the loss of the first N steps
};

struct FitResult {
  double accuracy = 0.0;       // fraction of validation argmax equal to the label
  std::vector<float> losses;   // the first record_losses step losses
  double seconds = 0.0;        // wall time of training and evaluation
  std::uint64_t multiply_adds = 0;  // matrix work done: 3x forward per step (backward = 2x), plus evaluation
};

/// Trains `model` as the course's fit() does and returns its validation
/// accuracy. The model must offer
///   nn::Parameters params;
///   float train_step(const int32_t* tokens, const int32_t* labels, int B, random::Generator& g);
///     // forward in training mode (dropout drawn from g), cross-entropy,
///     // backward ADDING into params.grads(); returns the mean loss
///   void logits(const int32_t* tokens, int B, float* out);   // eval mode, out (B, 2)
///   std::size_t forward_macs(int B) const;                  // multiply-adds of one forward
/// with buffers for batches up to max(batch_size, eval_batch_size).
/// The global generator is re-seeded with cfg.seed, then each epoch draws
/// its order as DataLoader does (torch_rng.md §5), so dropout draws inside
/// train_step shift the next epoch's order exactly as in PyTorch.
/// Pins OpenBLAS to one thread for the whole process, once: training runs
/// are parallelised across rows instead, and two BLAS threads per row on a
/// 2-core machine spin against each other (xtensor_notes.md).
void use_single_threaded_blas();

template <class Model>
FitResult fit(Model& model, const data::Sequences& train, const data::Sequences& val, const FitConfig& cfg) {
  use_single_threaded_blas();
  const auto start = std::chrono::steady_clock::now();
  random::Generator g(cfg.seed);
  optim::AdamW opt(model.params.count(), {.lr = cfg.lr});
  Batch batch(cfg.batch_size > cfg.eval_batch_size ? cfg.batch_size : cfg.eval_batch_size, train.length);
  FitResult result;
  result.losses.reserve(cfg.record_losses);
  for (int epoch = 0; epoch < cfg.epochs; ++epoch) {
    const std::vector<std::int64_t> order = data::shuffled_epoch_order(g, train.n);
    for (int first = 0; first < train.n; first += cfg.batch_size) {
      const int b = gather(batch, train, order.data() + first, std::min(cfg.batch_size, train.n - first));
      model.params.zero_grad();
      const float loss = model.train_step(batch.tokens.data(), batch.labels.data(), b, g);
      result.multiply_adds += 3 * static_cast<std::uint64_t>(model.forward_macs(b));
      if (static_cast<int>(result.losses.size()) < cfg.record_losses) result.losses.push_back(loss);
      optim::clip_grad_norm(model.params.grads().data(), model.params.count(), cfg.max_norm);
      opt.step(model.params.values().data(), model.params.grads().data());
    }
  }
  std::vector<float> logits(static_cast<std::size_t>(cfg.eval_batch_size) * 2);
  long right = 0;
  for (int first = 0; first < val.n; first += cfg.eval_batch_size) {
    const int b = gather_range(batch, val, first, std::min(cfg.eval_batch_size, val.n - first));
    model.logits(batch.tokens.data(), b, logits.data());
    result.multiply_adds += static_cast<std::uint64_t>(model.forward_macs(b));
    right += count_correct(logits.data(), batch.labels.data(), b);
  }
  result.accuracy = static_cast<double>(right) / val.n;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace attnlab::training
