// What every trained table shares: a row trains through fit() with its
// progress and its failures reported, prints "diverged" instead of an
// accuracy that means nothing, and carries its training record in JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "experiments/experiment.hpp"
#include "experiments/training_params.hpp"
#include "training/fit.hpp"

namespace attnlab::experiments {

/// Tells the run at once (ctx.warn) when a row diverged or its loss rose.
void report_training(const RunContext& ctx, const std::string& kind, const std::string& label,
                     const training::FitResult& r);

/// fit() for one row of a table (`label` as the table prints it): its steps
/// go to ctx.row_progress under "KIND: LABEL", and a divergence or a rising
/// loss is reported on stderr as soon as the row ends.
template <class Model>
training::FitResult fit_row(Model& model, const Datasets& data, training::FitConfig cfg, const RunContext& ctx,
                            const std::string& kind, const std::string& label) {
  if (ctx.row_progress) cfg.on_step = ctx.row_progress(kind + ": " + label);
  cfg.eval_every_epoch = cfg.eval_every_epoch && ctx.epoch_curves;
  training::FitResult r = training::fit(model, data.train, data.val, cfg);
  report_training(ctx, kind, label, r);
  return r;
}

/// The accuracy as printf's "%WIDTH.PRECISIONf", or "diverged" right-aligned
/// to the same width: a row that diverged never shows an accuracy.
std::string accuracy_cell(const training::FitResult& r, int width, int precision = 4);

/// A loss for JSON: the number, or the string "nan", "inf" or "-inf" (JSON
/// has no such numbers).
nlohmann::json loss_json(double loss);

/// Adds to a JSON row what training recorded: "status" ("ok" or
/// "diverged"), "epoch_losses" (each completed epoch's mean step loss),
/// "epoch_val_accuracies" (validation accuracy after each completed epoch;
/// the last equals "accuracy"; left out for a fit that measures none per
/// epoch), "first_loss", "loss_rose" (the last epoch's
/// mean is more than 10% above the first step's loss), "timed_multiply_adds"
/// (every multiply-add done within the row's "seconds", evaluations included;
/// left out for a fit that counts none), and for a diverged row
/// "diverged": {"epoch", "step", "loss"} (1-based) with "accuracy" null.
void add_training_record(nlohmann::json& row, const training::FitResult& r);

/// Adds the row to the report's `diverged` or `loss_rose` lists when it
/// belongs there (the runner puts them in the JSON result and sets its status).
void note_training(Report& report, const std::string& label, const training::FitResult& r);

}  // namespace attnlab::experiments
