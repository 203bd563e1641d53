// The course's fit(): AdamW, global-norm clipping, shuffled mini-batches,
// then accuracy on the validation set; with a record of each epoch, a stop
// at the first loss that is not finite, and a report after every step.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "data/loader_order.hpp"
#include "data/sequences.hpp"
#include "optim/adamw.hpp"
#include "optim/clip_grad_norm.hpp"
#include "random/generator.hpp"
#include "training/batch.hpp"
#include "training/epoch_loop.hpp"
#include "training/fit_result.hpp"
#include "training/split_step.hpp"

namespace attnlab::training {

/// fit()'s settings; defaults are the course's (data/course/13_*.py).
struct FitConfig {
  int epochs = 10;
  double lr = 3e-3;
  int batch_size = 64;        // DataLoader(batch_size=64, shuffle=True)
  int eval_batch_size = 512;  // the validation loader's batch size
  double max_norm = 1.0;      // clip_grad_norm_(model.parameters(), 1.0)
  std::uint64_t seed = 0;     // fit() calls torch.manual_seed(0) first
  int record_losses = 0;      // keep the loss of the first N steps
  /// Train each batch in two fixed halves (training/split_step.hpp) when the
  /// model allows it, so that a spare core can take the second half. The
  /// result is the same on any number of threads; it differs from the
  /// unsplit batch only in the rounding of the batch's sums.
  bool split_batch = true;
  /// Evaluate on the validation set after every epoch (FitResult::epochs'
  /// val_accuracy: the JSON's learning curves and their figures). False:
  /// after the last epoch only, as the course's fit() does, for a run that
  /// prints only the table (nine fewer evaluations in ten epochs, 6-8 % of a
  /// table's work); the other epochs' val_accuracy is then NaN.
  bool eval_every_epoch = true;
  /// Called on the training thread after every step and once at the end;
  /// it must be cheap (it runs between steps) and must not throw. Empty:
  /// nothing is reported.
  std::function<void(const FitProgress&)> on_step;
};

/// The batch capacity fit() needs: the largest training batch and the
/// largest evaluation batch these data allow (a model and fit()'s buffers
/// are sized to it, never to a batch size larger than the data).
int max_batch(const FitConfig& cfg, int n_train, int n_val);

/// Bytes fit() allocates besides the model and the data: AdamW's two
/// moments, the batch buffers, one epoch's shuffled order and the
/// evaluation logits.
std::size_t fit_memory_bytes(const FitConfig& cfg, std::size_t n_params, int n_train, int n_val, int length);

/// Trains `model` as the course's fit() does and returns its validation
/// accuracy. The model must offer
///   kernels::Parameters params;
///   float train_step(const int32_t* tokens, const int32_t* labels, int B, random::Generator& g);
///     // forward in training mode (dropout drawn from g), cross-entropy,
///     // backward ADDING into params.grads(); returns the mean loss
///     // (or, to be split over two cores, training::SplittableModel's parts)
///   void logits(const int32_t* tokens, int B, float* out);   // eval mode, out (B, 2)
///   std::size_t forward_macs(int B) const;                  // multiply-adds of one forward
/// with buffers for batches up to max_batch(cfg, train.n, val.n).
/// The global generator is re-seeded with cfg.seed, then each epoch draws
/// its order as DataLoader does (docs/torch_rng.md §5), so dropout draws inside
/// train_step shift the next epoch's order exactly as in PyTorch.
/// A step whose loss is NaN or infinite ends training at once, before the
/// optimiser step: the result carries `diverged` and no accuracy (PyTorch
/// would carry on with NaN weights; nothing after that step means anything).
/// After every completed epoch (or only the last, cfg.eval_every_epoch) the
/// model is evaluated on `val` for FitResult::epochs (eval mode draws
/// nothing from the generator and touches no parameter, so the record
/// changes no trained figure); the last epoch's evaluation is the result's
/// accuracy.
/// Pins OpenBLAS to one thread for the whole process, once: training runs
/// are parallelised across rows instead, and two BLAS threads per row on a
/// 2-core machine spin against each other (docs/xtensor.md).
void use_single_threaded_blas();

template <class Model>
FitResult fit(Model& model, const data::Sequences& train, const data::Sequences& val, const FitConfig& cfg) {
  use_single_threaded_blas();
  const auto start = std::chrono::steady_clock::now();
  random::Generator g(cfg.seed);
  Batch batch(max_batch(cfg, train.n, val.n), train.length);
  FitResult result;
  std::vector<float> logits(static_cast<std::size_t>(batch.capacity) * 2);
  // Validation accuracy in eval mode; `counted` adds its work to multiply_adds
  // (timed_multiply_adds counts every evaluation).
  auto evaluate = [&](bool counted) {
    long right = 0;
    for (int first = 0; first < val.n; first += cfg.eval_batch_size) {
      const int b = gather_range(batch, val, first, std::min(cfg.eval_batch_size, val.n - first));
      model.logits(batch.tokens.data(), b, logits.data());
      const auto macs = static_cast<std::uint64_t>(model.forward_macs(b));
      if (counted) result.multiply_adds += macs;
      result.timed_multiply_adds += macs;
      right += count_correct(logits.data(), batch.labels.data(), b);
    }
    return static_cast<double>(right) / val.n;
  };
  EpochLoop loop({.epochs = cfg.epochs, .lr = cfg.lr, .batch_size = cfg.batch_size, .max_norm = cfg.max_norm,
                  .record_losses = cfg.record_losses, .on_step = &cfg.on_step},
                 train.n);
  StepRunner<Model> train_step(model, cfg.split_batch, std::min(cfg.batch_size, train.n));
  loop.run(
      g, model.params, result,
      [&](const std::int64_t* rows, int n) {
        const int b = gather(batch, train, rows, n);
        model.params.zero_grad();
        const float loss = train_step(batch.tokens.data(), batch.labels.data(), b, batch.length, g);
        const auto macs = 3 * static_cast<std::uint64_t>(model.forward_macs(b));
        result.multiply_adds += macs;
        result.timed_multiply_adds += macs;
        return loss;
      },
      [&](int epoch) {
        const bool last = epoch + 1 == cfg.epochs;
        return last || cfg.eval_every_epoch ? evaluate(last) : std::numeric_limits<double>::quiet_NaN();
      });
  if (!result.diverged) result.accuracy = result.epochs.empty() ? evaluate(true) : result.epochs.back().val_accuracy;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace attnlab::training
