#include "experiments/trained_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/text.hpp"

namespace attnlab::experiments {

namespace {
// "nan", never "-nan": the sign of a NaN means nothing to a reader.
std::string loss_text(double loss) {
  if (std::isnan(loss)) return "nan";
  return std::isfinite(loss) ? fmt::format("{:.4g}", loss) : loss > 0 ? "inf" : "-inf";
}
}  // namespace

void report_training(const RunContext& ctx, const std::string& kind, const std::string& label,
                     const training::FitResult& r) {
  if (!ctx.warn) return;
  if (r.diverged)
    ctx.warn(fmt::format("{}: row \"{}\" diverged at epoch {}, step {}: the loss is {}; training stopped there "
                         "(a smaller lr usually helps)",
                         kind, label, r.diverged->epoch, r.diverged->step, loss_text(r.diverged->loss)));
  else if (r.loss_rose())
    ctx.warn(fmt::format("warning: {}: row \"{}\": the loss rose from {} (first step) to {} (mean of epoch {}); "
                         "training made the model worse (is lr too large?)",
                         kind, label, loss_text(r.first_loss), loss_text(r.epochs.back().mean_loss), r.epochs.size()));
}

std::string accuracy_cell(const training::FitResult& r, int width, int precision) {
  if (r.diverged) return fmt::format("{:>{}}", "diverged", width);
  return report::printf("%*.*f", width, precision, r.accuracy);
}

nlohmann::json loss_json(double loss) {
  if (std::isnan(loss)) return "nan";
  if (std::isinf(loss)) return loss > 0 ? "inf" : "-inf";
  return loss;
}

void add_training_record(nlohmann::json& row, const training::FitResult& r) {
  nlohmann::json epochs = nlohmann::json::array(), accuracies = nlohmann::json::array();
  for (const auto& e : r.epochs) {
    epochs.push_back(e.mean_loss);
    accuracies.push_back(e.val_accuracy);
  }
  row["status"] = r.diverged ? "diverged" : "ok";
  row["epoch_losses"] = epochs;
  // Left out when not measured each epoch (translation), rather than a curve of NaNs.
  const bool measured = std::none_of(r.epochs.begin(), r.epochs.end(),
                                     [](const training::EpochRecord& e) { return std::isnan(e.val_accuracy); });
  if (measured) row["epoch_val_accuracies"] = accuracies;
  row["first_loss"] = loss_json(r.first_loss);
  row["loss_rose"] = r.loss_rose();
  // Beside the row's "seconds": the work they timed, the epochs' evaluations
  // included (a rate from "multiply_adds", the course's work, would leave them out).
  if (r.timed_multiply_adds > 0) row["timed_multiply_adds"] = r.timed_multiply_adds;
  if (r.diverged) {
    row["accuracy"] = nullptr;
    row["diverged"] = {{"epoch", r.diverged->epoch}, {"step", r.diverged->step}, {"loss", loss_json(r.diverged->loss)}};
  }
}

void note_training(Report& report, const std::string& label, const training::FitResult& r) {
  if (r.diverged) report.diverged.push_back({label, *r.diverged});
  else if (r.loss_rose()) report.loss_rose.push_back({label, r.first_loss, r.epochs.back().mean_loss});
}

}  // namespace attnlab::experiments
