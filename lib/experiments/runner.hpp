// Running several loaded specs and rendering what they produced.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "experiments/registry.hpp"

namespace attnlab::experiments {

/// How a run ended.
///   ok        every row trained (or the kind trains nothing) and the table is whole
///   diverged  at least one training row's loss became NaN or infinite; that
///             row prints "diverged" instead of its accuracy, the others are real
///   failed    the run threw (out of memory, an I/O error, a bug); no table
enum class Status { ok, diverged, failed };
const char* status_name(Status s);  // "ok", "diverged", "failed"

/// One run, finished or failed.
struct Result {
  LoadedSpec loaded;
  Report report;
  Status status = Status::ok;
  std::string error;  // the failure's message, for Status::failed
};

struct RunOptions {
  bool keep_going = false;  // a failed spec is reported and the others still run
};

/// Runs each spec in course order (stable for equal order), serially; each
/// kind parallelises its own independent rows over ctx.jobs. A failure
/// without keep_going is thrown as std::runtime_error("FILE: KIND: MESSAGE");
/// with keep_going it is reported at once through ctx.warn as "failed: FILE:
/// KIND: MESSAGE", becomes a Result with Status::failed, and the next spec
/// runs. The lines a kind's rows send to ctx.warn (a divergence, a rising
/// loss) get the spec's file in front, after any leading "warning: ".
std::vector<Result> run_all(std::vector<LoadedSpec> specs, const RunContext& ctx, const RunOptions& options = {});

/// True when every result is Status::ok (the run's exit code is 0).
bool all_ok(const std::vector<Result>& results);

/// The text of a run: a single table as the course prints it; several
/// tables (or any number, with `headings`, as --check compares them) each
/// preceded by a line "== KIND: FILE ==" and separated by a blank line. A
/// failed run prints nothing (its error went to stderr); it still counts
/// towards "several", so the layout does not depend on what failed.
std::string render_text(const std::vector<Result>& results, bool headings = false);

/// The same results as one JSON document — the contract scripts (and
/// `attnlab sweep`) read:
///   {"attnlab": VERSION,
///    "results": [{"file", "experiment", "spec",   // the resolved spec
///                 "status": "ok" | "diverged" | "failed",
///                 "data", "text",                   // the kind's figures and its table ("" when failed)
///                 "table",                           // report::to_json, for kinds that fill one (sweep aggregates it)
///                 "memory_estimate_bytes",           // the kind's estimate (experiments/memory_check.hpp)
///                 "diverged": [{"row", "epoch", "step", "loss"}],    // only when diverged
///                 "loss_rose": [{"row", "first_loss", "last_epoch_loss"}],  // only when some row's loss rose
///                 "error": MESSAGE}]}                // only when failed
/// "row" is the row's label as the table prints it in its first column
/// ("with positions", "64" for a hidden size, "accuracy" for attention_map's
/// one model); "epoch" and "step" are 1-based (step within the epoch);
/// "loss" is a number or the string "nan", "inf" or "-inf".
/// Trained kinds (bottleneck, heads, positions, rnn_vs_attention,
/// attention_map) also give each row in data.rows (attention_map: data
/// itself) "status", "epoch_losses" (each epoch's mean step loss),
/// "first_loss", "loss_rose" (bool: the last epoch's mean loss is more than
/// 10% above the first step's, training::FitResult::loss_rose) and, when diverged, "diverged":
/// {"epoch", "step", "loss"} with "accuracy": null
/// (experiments/trained_rows.hpp).
nlohmann::json render_json(const std::vector<Result>& results, int jobs = 1);

}  // namespace attnlab::experiments
