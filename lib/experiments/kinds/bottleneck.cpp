// Course day 1, "The bottleneck, measured" (data/course/01_bottleneck.py):
// an LSTM that must carry the first digit to the end in its last hidden
// state. Below some hidden size the state cannot hold it and accuracy stays
// at chance; attention (the rest of the chapter) removes the bottleneck.
#include <fmt/format.h>

#include "experiments/kinds/kinds.hpp"
#include "experiments/trained_rows.hpp"
#include "experiments/training_params.hpp"
#include "models/recurrent_classifier.hpp"
#include "report/text.hpp"
#include "training/parallel.hpp"

namespace attnlab::experiments {

namespace {

models::RecurrentClassifierConfig model_config(const nlohmann::json& spec, int hidden_size) {
  models::RecurrentClassifierConfig cfg;
  cfg.cell = models::cell_from_name(spec.at("cell").get<std::string>());
  cfg.hidden_size = hidden_size;
  return cfg;
}

Report run(const nlohmann::json& spec, const RunContext& ctx) {
  const Datasets data = make_datasets(spec);
  const auto sizes = spec.at("hidden_sizes").get<std::vector<int>>();
  const training::FitConfig fit = fit_config(spec);
  std::vector<training::FitResult> results(sizes.size());
  training::run_parallel(static_cast<int>(sizes.size()), ctx.jobs, [&](int i) {
    random::Generator init(spec.at("seed").get<std::uint64_t>());  // torch.manual_seed before LastState(hidden)
    models::RecurrentClassifier model(model_config(spec, sizes[i]), init, max_batch(spec), data.train.length);
    results[i] = fit_row(model, data, fit, ctx, "bottleneck", std::to_string(sizes[i]));
    if (ctx.progress) ctx.progress(fmt::format("bottleneck: hidden {} done in {:.1f} s", sizes[i], results[i].seconds));
  }, std::vector<double>(sizes.begin(), sizes.end()));  // larger states train longer
  Report r;
  r.text = report::printf("%14s %12s\n", "hidden size", "accuracy");
  r.data["rows"] = nlohmann::json::array();
  r.table = {.label_header = "hidden size", .columns = {{"accuracy", "accuracy", "%.4f"}}};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    r.table.add_row(std::to_string(sizes[i]), {results[i].accuracy});
    r.text += report::printf("%14d ", sizes[i]) + accuracy_cell(results[i], 12) + "\n";
    nlohmann::json row = {{"hidden_size", sizes[i]},
                          {"accuracy", results[i].accuracy},
                          {"seconds", results[i].seconds},
                          {"multiply_adds", results[i].multiply_adds}};
    add_training_record(row, results[i]);
    r.data["rows"].push_back(row);
    note_training(r, std::to_string(sizes[i]), results[i]);
  }
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int jobs) {
  std::vector<RowMemory> rows;
  const auto sizes = spec.at("hidden_sizes").get<std::vector<int>>();
  for (std::size_t i = 0; i < sizes.size(); ++i)
    rows.push_back(row_memory<models::RecurrentClassifier>(spec, model_config(spec, sizes[i]),
                                                           fmt::format("/hidden_sizes/{}", i)));
  return training_memory(spec, jobs, rows, "hidden_sizes");
}

}  // namespace

Experiment bottleneck_experiment() {
  using spec::Type;
  return {.name = "bottleneck",
          .summary = "LSTM last-state classifier: accuracy by hidden size (the bottleneck)",
          .course_order = 1,
          .params = with({{.name = "hidden_sizes", .type = Type::IntegerList, .default_value = {2, 4, 8, 64},
                           .doc = "hidden sizes of the recurrent layer, one row each", .min = 1, .max = 4096},
                          {.name = "cell", .type = Type::String, .default_value = "lstm",
                           .doc = "recurrent cell", .choices = {"rnn", "gru", "lstm"}}},
                         training_params()),
          .check = nullptr,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
