// Course day 7, "Against the recurrent models" (data/course/
// 18_rnn_vs_attention.py): a plain RNN, an LSTM and the pre-norm attention
// classifier with one and two blocks, on the same task: parameters,
// accuracy, and the wall time of each row's training.
#include <fmt/format.h>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/spec_rules.hpp"
#include "experiments/trained_rows.hpp"
#include "experiments/training_params.hpp"
#include "models/recurrent_classifier.hpp"
#include "models/transformer_classifier.hpp"
#include "report/text.hpp"
#include "spec/spec_error.hpp"
#include "training/parallel.hpp"

namespace attnlab::experiments {

namespace {

struct Row {
  std::string label;
  bool recurrent = true;
  std::string cell;
  int blocks = 0;
};

std::vector<Row> rows_of(const nlohmann::json& spec) {
  std::vector<Row> rows;
  for (const auto& cell : spec.at("recurrent").get<std::vector<std::string>>())
    rows.push_back({cell == "rnn" ? "plain RNN" : cell == "gru" ? "GRU" : "LSTM", true, cell, 0});
  for (int blocks : spec.at("blocks").get<std::vector<int>>())
    rows.push_back({fmt::format("attention, {} block{}", blocks, blocks == 1 ? "" : "s"), false, "", blocks});
  return rows;
}

// Measured per-step costs (bench/train_step_bench): a block ~1.4 ms, an
// LSTM 0.9, a GRU 0.8, a plain RNN 0.3; only their order matters.
std::vector<double> expected_cost(const std::vector<Row>& rows) {
  std::vector<double> cost;
  for (const auto& r : rows)
    cost.push_back(r.recurrent ? (r.cell == "rnn" ? 0.3 : r.cell == "gru" ? 0.8 : 0.9) : 1.4 * r.blocks);
  return cost;
}

models::RecurrentClassifierConfig recurrent_config(const nlohmann::json& spec, const Row& row) {
  models::RecurrentClassifierConfig cfg;
  cfg.cell = models::cell_from_name(row.cell);
  cfg.hidden_size = spec.at("hidden_size").get<int>();
  return cfg;
}

models::TransformerClassifierConfig attention_config(const nlohmann::json& spec, const Row& row) {
  models::TransformerClassifierConfig cfg;
  cfg.d_model = spec.at("d_model").get<int>();
  cfg.n_heads = spec.at("n_heads").get<int>();
  cfg.n_blocks = row.blocks;
  cfg.dropout = spec.at("dropout").get<double>();
  return cfg;
}

struct Outcome {
  std::size_t params = 0;
  training::FitResult fit;
};

Report run(const nlohmann::json& spec, const RunContext& ctx) {
  const Datasets data = make_datasets(spec);
  const std::vector<Row> rows = rows_of(spec);
  const training::FitConfig fit = fit_config(spec);
  const int capacity = max_batch(spec), T = data.train.length;
  const auto seed = spec.at("seed").get<std::uint64_t>();
  std::vector<Outcome> out(rows.size());
  training::run_parallel(static_cast<int>(rows.size()), ctx.jobs, [&](int i) {
    random::Generator init(seed);  // torch.manual_seed(0); model = maker()
    if (rows[i].recurrent) {
      models::RecurrentClassifier model(recurrent_config(spec, rows[i]), init, capacity, T);
      out[i] = {model.params.count(), fit_row(model, data, fit, ctx, "rnn_vs_attention", rows[i].label)};
    } else {
      models::TransformerClassifier model(attention_config(spec, rows[i]), init, capacity, T);
      out[i] = {model.params.count(), fit_row(model, data, fit, ctx, "rnn_vs_attention", rows[i].label)};
    }
    if (ctx.progress) ctx.progress(fmt::format("rnn_vs_attention: {} done in {:.1f} s", rows[i].label, out[i].fit.seconds));
  }, expected_cost(rows));
  Report r;
  r.text = report::printf("%-26s %10s %10s %9s\n", "", "params", "accuracy", "time");
  r.data["rows"] = nlohmann::json::array();
  r.table = {.label_header = "",
             .label_left = true,
             .columns = {{"params", "params", "%.0f"},
                         {"accuracy", "accuracy", "%.4f"},
                         {"time", "seconds", "%.0fs", true}}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    r.table.add_row(rows[i].label, {static_cast<double>(out[i].params), out[i].fit.accuracy, out[i].fit.seconds});
    r.text += report::printf("%-26s %10d ", rows[i].label.c_str(), static_cast<int>(out[i].params)) +
              accuracy_cell(out[i].fit, 10) + report::printf(" %8.0fs\n", out[i].fit.seconds);
    nlohmann::json row = {{"model", rows[i].label},
                          {"params", out[i].params},
                          {"accuracy", out[i].fit.accuracy},
                          {"seconds", out[i].fit.seconds},
                          {"multiply_adds", out[i].fit.multiply_adds}};
    add_training_record(row, out[i].fit);
    r.data["rows"].push_back(row);
    note_training(r, rows[i].label, out[i].fit);
  }
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int jobs) {
  std::vector<RowMemory> need;
  const std::vector<Row> rows = rows_of(spec);
  for (std::size_t i = 0, blocks = 0; i < rows.size(); ++i)
    need.push_back(rows[i].recurrent
                       ? row_memory<models::RecurrentClassifier>(spec, recurrent_config(spec, rows[i]), "/hidden_size")
                       : row_memory<models::TransformerClassifier>(spec, attention_config(spec, rows[i]),
                                                                   fmt::format("/blocks/{}", blocks++)));
  return training_memory(spec, jobs, need, "hidden_size, d_model or blocks");
}

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file);
  if (spec.at("recurrent").empty() && spec.at("blocks").empty())
    throw spec::SpecError(file, "", "no rows: give at least one of \"recurrent\" or \"blocks\"");
}

}  // namespace

Experiment rnn_vs_attention_experiment() {
  using spec::Type;
  return {.name = "rnn_vs_attention",
          .summary = "plain RNN, LSTM and attention with 1 and 2 blocks: parameters, accuracy, training time",
          .course_order = 18,
          .params = with({{.name = "recurrent", .type = Type::StringList, .default_value = {"rnn", "lstm"},
                           .doc = "recurrent rows, in order", .choices = {"rnn", "gru", "lstm"}, .min_items = 0,
                           .max_items = 8},
                          {.name = "blocks", .type = Type::IntegerList, .default_value = {1, 2},
                           .doc = "attention rows: the number of transformer blocks of each", .min = 1, .max = 24,
                           .min_items = 0, .max_items = 8},
                          {.name = "hidden_size", .type = Type::Integer, .default_value = 64,
                           .doc = "hidden size of the recurrent rows", .min = 1, .max = 4096},
                          d_model_param(32, "width of the attention rows"),
                          n_heads_param(4),
                          {.name = "dropout", .type = Type::Number, .default_value = 0.1,
                           .doc = "dropout on attention weights and feed-forward output", .min = 0, .max = 0.95}},
                         training_params()),
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
