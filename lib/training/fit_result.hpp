// What a training run reports: its progress after each step, the record
// of each epoch, the step where it diverged, and the result fit() and
// fit_translation() return.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace attnlab::training {

/// Where fit() stands: passed to FitConfig::on_step after every training
/// step, and once more when training ends (done = true).
struct FitProgress {
  int epoch = 0, epochs = 0;  // the epoch running, 1-based, of `epochs`
  int step = 0, steps = 0;    // the step within it, 1-based, of `steps` per epoch
  float loss = 0;             // that step's loss
  bool done = false;          // training has ended (finished, diverged or failed)
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
  /// Every multiply-add done within `seconds`: multiply_adds plus the
  /// evaluations of the earlier epochs (FitConfig::eval_every_epoch, made for
  /// the JSON record and the learning curves). 2 · timed_multiply_adds /
  /// seconds is the row's achieved rate; multiply_adds / seconds understated
  /// it by 5-7 % in a JSON run of the course's tables, which evaluates
  /// every epoch. 0 where a fit counts no work (translation).
  std::uint64_t timed_multiply_adds = 0;

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

}  // namespace attnlab::training
