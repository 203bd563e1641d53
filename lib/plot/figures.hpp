// Which figures a result holds. Everything is drawn from the JSON documents
// attnlab writes (`run --format json`, `sweep --format json`), so `--plot`
// on a run and `attnlab plot` on its saved result draw the same files.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "plot/figure.hpp"

namespace attnlab::plot {

/// The figures of one run result ({"experiment", "data", "table", ...}),
/// named "<prefix>.<figure>" (prefix: the kind, see figures_of_document):
///   heatmaps (rows = queries): attention_map.weights, causal_mask.weights,
///   padding_mask.mask and .weights_<b>, attention_weights.weights,
///   heads.untrained, library_mha.per_head and .causal, torch_mha.key_padding
///   and .attn_mask, sinusoidal.encodings;
///   learning curves (loss and validation accuracy per epoch, one line per
///   trained row): <kind>.learning_curves;
///   timing.log_log (forward time against length, the crossover marked);
///   translation.accuracy_by_length (one line per model over the source-length
///   buckets) and translation.alignment_<model> (one sentence's alignment),
///   from the rows issue 13's experiment writes ("label", "model",
///   "bucket_accuracy", optional "alignment", the table's acc_A_B columns).
/// A diverged row (status "diverged", issue 9) is named on its figures; its
/// weights and accuracies are not drawn.
/// Kinds with nothing to draw give none. Throws std::invalid_argument naming
/// the field when the result lacks what its kind's figure needs.
std::vector<Figure> figures_of_result(const nlohmann::json& result, const std::string& prefix);

/// The figures of a sweep's aggregated document (`sweep --format json`):
/// per non-timing metric, <kind>.sweep_<metric>: mean ± std against the
/// first swept numeric parameter, one line per row and combination of the
/// other parameters; with none swept but seeds, against the table's rows.
std::vector<Figure> figures_of_sweep(const nlohmann::json& doc);

/// Every figure of a document: a run's ({"results": [...]}; a kind that
/// appears again gets the prefix "<kind>-2", "-3", ...) or a sweep's
/// ({"tables": [...]}). Throws std::invalid_argument for anything else.
std::vector<Figure> figures_of_document(const nlohmann::json& doc);

}  // namespace attnlab::plot
