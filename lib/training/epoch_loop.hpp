// The training loop fit() and fit_translation() share, so that both train
// by the course's recipe step for step: each epoch a DataLoader order drawn
// from the re-seeded generator, then per batch the model's step, the loss
// record, a stop at the first loss that is not finite (before its optimiser
// step), global-norm clipping and AdamW at the schedule's learning rate
// (set before each step, as a PyTorch scheduler stepped after each
// optimiser step leaves it); the observer hears every step and,
// once, the end.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "data/loader_order.hpp"
#include "optim/adamw.hpp"
#include "optim/clip_grad_norm.hpp"
#include "random/generator.hpp"
#include "training/fit_result.hpp"
#include "training/lr_schedule.hpp"

namespace attnlab::training {

/// The settings of the loop, as FitConfig names them.
struct EpochLoopSettings {
  int epochs = 1;
  double lr = 3e-3;
  int batch_size = 64;
  double max_norm = 1.0;
  int record_losses = 0;
  LrSchedule lr_schedule = LrSchedule::constant;  // over epochs × steps per epoch
  const std::function<void(const FitProgress&)>* on_step = nullptr;  // may be empty
};

/// One training run over `n` examples. The observer hears `done` when this
/// object is destroyed, so a caller declares it before its evaluation and
/// whatever ends the caller (the last epoch, a divergence, an exception) is
/// reported once, after everything the run did.
class EpochLoop {
 public:
  EpochLoop(const EpochLoopSettings& s, int n)
      : s_(s), n_(n), at_{0, s.epochs, 0, (n + s.batch_size - 1) / s.batch_size, 0.0f, false} {}
  EpochLoop(const EpochLoop&) = delete;
  EpochLoop& operator=(const EpochLoop&) = delete;
  ~EpochLoop() {
    at_.done = true;
    report();
  }

  /// Trains for s.epochs epochs, or until a loss is not finite. For each
  /// batch, step(rows, b) must gather rows[0..b) of the training set, zero
  /// the gradients, run the forward and backward passes (adding into
  /// params.grads()) and return the mean loss; val_accuracy(epoch) (0-based)
  /// returns what the epoch's evaluation measured, NaN for none. Fills
  /// result.losses, first_loss, epochs and diverged.
  template <class Params, class Step, class ValAccuracy>
  void run(random::Generator& g, Params& params, FitResult& result, Step&& step, ValAccuracy&& val_accuracy) {
    optim::AdamW opt(params.count(), {.lr = s_.lr});
    result.losses.reserve(static_cast<std::size_t>(s_.record_losses));
    result.epochs.reserve(static_cast<std::size_t>(s_.epochs));
    const long total_steps = static_cast<long>(s_.epochs) * at_.steps;
    long steps_done = 0;
    for (int epoch = 0; epoch < s_.epochs && !result.diverged; ++epoch) {
      const std::vector<std::int64_t> order = data::shuffled_epoch_order(g, n_);
      double loss_sum = 0;
      at_.epoch = epoch + 1;
      for (int first = 0, k = 1; first < n_; first += s_.batch_size, ++k) {
        const float loss = step(order.data() + first, std::min(s_.batch_size, n_ - first));
        if (static_cast<int>(result.losses.size()) < s_.record_losses) result.losses.push_back(loss);
        if (epoch == 0 && k == 1) result.first_loss = loss;
        at_.step = k;
        at_.loss = loss;
        if (!std::isfinite(loss)) {  // nothing after this step means anything: stop before the update
          result.diverged = Divergence{epoch + 1, k, loss};
          break;
        }
        loss_sum += loss;
        report();
        optim::clip_grads(params.grads().data(), params.count(), s_.max_norm);
        opt.set_lr(lr_at(s_.lr, s_.lr_schedule, steps_done++, total_steps));
        opt.step(params.values().data(), params.grads().data());
      }
      if (!result.diverged) result.epochs.push_back({loss_sum / at_.steps, val_accuracy(epoch)});
    }
  }

 private:
  void report() const {
    if (s_.on_step && *s_.on_step) (*s_.on_step)(at_);
  }

  EpochLoopSettings s_;
  int n_;
  FitProgress at_;
};

}  // namespace attnlab::training
