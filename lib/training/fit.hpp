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

namespace attnlab::training {

/// Where fit() stands: passed to FitConfig::on_step after every training
/// step, and once more when training ends (done = true).
struct FitProgress {
  int epoch = 0, epochs = 0;  // the epoch running, 1-based, of `epochs`
  int step = 0, steps = 0;    // the step within it, 1-based, of `steps` per epoch
  float loss = 0;             // that step's loss
  bool done = false;          // training has ended (finished, diverged or failed)
};

/// fit()'s settings; defaults are the course's (shared/course/13_*.py).
struct FitConfig {
  int epochs = 10;
  double lr = 3e-3;
  int batch_size = 64;        // DataLoader(batch_size=64, shuffle=True)
  int eval_batch_size = 512;  // the validation loader's batch size
  double max_norm = 1.0;      // clip_grad_norm_(model.parameters(), 1.0)
  std::uint64_t seed = 0;     // fit() calls torch.manual_seed(0) first
  int record_losses = 0;      // keep the loss of the first N steps
  /// Called on the training thread after every step and once at the end;
  /// it must be cheap (it runs between steps) and must not throw. Empty:
  /// nothing is reported.
  std::function<void(const FitProgress&)> on_step;
};

/// What fit() records of one completed epoch, for learning curves.
struct EpochRecord {
  double mean_loss = 0;     // mean of the epoch's step losses, each batch weighing one
  // Validation accuracy after the epoch (the last epoch's is FitResult::accuracy);
  // NaN where a fit measures none per epoch (fit_translation).
  double val_accuracy = std::numeric_limits<double>::quiet_NaN();
};

/// The step whose loss was NaN or infinite; training stopped there.
struct Divergence {
  int epoch = 0, step = 0;  // 1-based, as in FitProgress
  float loss = 0;           // the loss, NaN or ±inf
};

struct FitResult {
  double accuracy = std::numeric_limits<double>::quiet_NaN();  // validation argmax == label; NaN if diverged
  std::vector<float> losses;        // the first record_losses step losses
  float first_loss = 0;             // the first step's loss
  std::vector<EpochRecord> epochs;  // every completed epoch, in order
  std::optional<Divergence> diverged;
  double seconds = 0.0;             // wall time of training and evaluation
  std::uint64_t multiply_adds = 0;  // matrix work done: 3x forward per step (backward = 2x), plus the final
                                    // evaluation (the earlier epochs' evaluations are the record's, not the course's)

  /// Training ended worse than it started: the last epoch's mean loss is
  /// above the first step's loss by more than kLossRiseMargin (never for a
  /// diverged run). The margin keeps a model that merely stays at chance
  /// quiet: the course's LSTM with 2 hidden units ends at 0.6917 after a
  /// lucky first batch of 0.6794 (+1.8%); at lr=10 the positions model ends
  /// at 87, 128 times its start.
  static constexpr double kLossRiseMargin = 0.10;
  bool loss_rose() const {
    return !diverged && !epochs.empty() && epochs.back().mean_loss > first_loss * (1 + kLossRiseMargin);
  }
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
///   nn::Parameters params;
///   float train_step(const int32_t* tokens, const int32_t* labels, int B, random::Generator& g);
///     // forward in training mode (dropout drawn from g), cross-entropy,
///     // backward ADDING into params.grads(); returns the mean loss
///   void logits(const int32_t* tokens, int B, float* out);   // eval mode, out (B, 2)
///   std::size_t forward_macs(int B) const;                  // multiply-adds of one forward
/// with buffers for batches up to max_batch(cfg, train.n, val.n).
/// The global generator is re-seeded with cfg.seed, then each epoch draws
/// its order as DataLoader does (torch_rng.md §5), so dropout draws inside
/// train_step shift the next epoch's order exactly as in PyTorch.
/// A step whose loss is NaN or infinite ends training at once, before the
/// optimiser step: the result carries `diverged` and no accuracy (PyTorch
/// would carry on with NaN weights; nothing after that step means anything).
/// After every completed epoch the model is evaluated on `val` for
/// FitResult::epochs (eval mode draws nothing from the generator and touches
/// no parameter, so the record changes no trained figure); the last epoch's
/// evaluation is the result's accuracy.
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
  Batch batch(max_batch(cfg, train.n, val.n), train.length);
  FitResult result;
  result.losses.reserve(cfg.record_losses);
  result.epochs.reserve(cfg.epochs);
  std::vector<float> logits(static_cast<std::size_t>(batch.capacity) * 2);
  // Validation accuracy in eval mode; `counted` adds its work to multiply_adds.
  auto evaluate = [&](bool counted) {
    long right = 0;
    for (int first = 0; first < val.n; first += cfg.eval_batch_size) {
      const int b = gather_range(batch, val, first, std::min(cfg.eval_batch_size, val.n - first));
      model.logits(batch.tokens.data(), b, logits.data());
      if (counted) result.multiply_adds += static_cast<std::uint64_t>(model.forward_macs(b));
      right += count_correct(logits.data(), batch.labels.data(), b);
    }
    return static_cast<double>(right) / val.n;
  };
  const int steps = (train.n + cfg.batch_size - 1) / cfg.batch_size;
  FitProgress at{0, cfg.epochs, 0, steps, 0.0f, false};
  // Whatever ends training (the last epoch, a divergence, an exception), the observer hears it once.
  struct Done {
    const FitConfig& cfg;
    FitProgress& at;
    ~Done() {
      at.done = true;
      if (cfg.on_step) cfg.on_step(at);
    }
  } done{cfg, at};
  for (int epoch = 0; epoch < cfg.epochs && !result.diverged; ++epoch) {
    const std::vector<std::int64_t> order = data::shuffled_epoch_order(g, train.n);
    double loss_sum = 0;
    at.epoch = epoch + 1;
    for (int first = 0, step = 1; first < train.n; first += cfg.batch_size, ++step) {
      const int b = gather(batch, train, order.data() + first, std::min(cfg.batch_size, train.n - first));
      model.params.zero_grad();
      const float loss = model.train_step(batch.tokens.data(), batch.labels.data(), b, g);
      result.multiply_adds += 3 * static_cast<std::uint64_t>(model.forward_macs(b));
      if (static_cast<int>(result.losses.size()) < cfg.record_losses) result.losses.push_back(loss);
      if (epoch == 0 && step == 1) result.first_loss = loss;
      at.step = step;
      at.loss = loss;
      if (!std::isfinite(loss)) {
        result.diverged = Divergence{epoch + 1, step, loss};
        break;
      }
      loss_sum += loss;
      if (cfg.on_step) cfg.on_step(at);
      optim::clip_grad_norm(model.params.grads().data(), model.params.count(), cfg.max_norm);
      opt.step(model.params.values().data(), model.params.grads().data());
    }
    if (!result.diverged) result.epochs.push_back({loss_sum / steps, evaluate(epoch + 1 == cfg.epochs)});
  }
  if (!result.diverged) result.accuracy = result.epochs.empty() ? evaluate(true) : result.epochs.back().val_accuracy;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace attnlab::training
