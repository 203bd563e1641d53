// Course day 5, "Whether it matters, measured" (data/course/
// 13_positions_vs_none.py): the same attention classifier trained without
// and with learned positions. Without them attention is permutation-
// equivariant and the mean over time forgets the order, so the task
// ("is the first digit repeated later?") stays near chance.
#include <fmt/format.h>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/spec_rules.hpp"
#include "experiments/trained_rows.hpp"
#include "experiments/training_params.hpp"
#include "models/attention_classifier.hpp"
#include "report/text.hpp"
#include "spec/spec_error.hpp"
#include "training/parallel.hpp"

namespace attnlab::experiments {

namespace {

const char* label(const std::string& variant) { return variant == "learned" ? "with positions" : "no positions"; }

models::AttentionClassifierConfig model_config(const nlohmann::json& spec, const std::string& variant) {
  models::AttentionClassifierConfig cfg;
  cfg.d_model = spec.at("d_model").get<int>();
  cfg.n_heads = spec.at("n_heads").get<int>();
  cfg.use_positions = variant == "learned";
  return cfg;
}

Report run(const nlohmann::json& spec, const RunContext& ctx) {
  const Datasets data = make_datasets(spec);
  const auto variants = spec.at("variants").get<std::vector<std::string>>();
  const training::FitConfig fit = fit_config(spec);
  std::vector<training::FitResult> results(variants.size());
  training::run_parallel(static_cast<int>(variants.size()), ctx.jobs, [&](int i) {
    // torch.manual_seed(seed) before the model is built, then fit() seeds again.
    random::Generator init(spec.at("seed").get<std::uint64_t>());
    models::AttentionClassifier model(model_config(spec, variants[i]), init, max_batch(spec), data.train.length);
    results[i] = fit_row(model, data, fit, ctx, "positions", label(variants[i]));
    if (ctx.progress) ctx.progress(fmt::format("positions: {} done in {:.1f} s", label(variants[i]), results[i].seconds));
  });
  Report r;
  r.text = report::printf("%-22s %12s\n", "", "accuracy");
  r.data["rows"] = nlohmann::json::array();
  r.table = {.label_header = "", .label_left = true, .columns = {{"accuracy", "accuracy", "%.4f"}}};
  for (std::size_t i = 0; i < variants.size(); ++i) {
    r.table.add_row(label(variants[i]), {results[i].accuracy});
    r.text += report::printf("%-22s ", label(variants[i])) + accuracy_cell(results[i], 12) + "\n";
    nlohmann::json row = {{"variant", variants[i]},
                          {"label", label(variants[i])},
                          {"accuracy", results[i].accuracy},
                          {"seconds", results[i].seconds},
                          {"multiply_adds", results[i].multiply_adds}};
    add_training_record(row, results[i]);
    r.data["rows"].push_back(row);
    note_training(r, label(variants[i]), results[i]);
  }
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int jobs) {
  std::vector<RowMemory> rows;
  for (const auto& v : spec.at("variants").get<std::vector<std::string>>())
    rows.push_back(row_memory<models::AttentionClassifier>(spec, model_config(spec, v), "/d_model"));
  return training_memory(spec, jobs, rows, "d_model or variants");
}

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file);
}

}  // namespace

Experiment positions_experiment() {
  using spec::Type;
  return {.name = "positions",
          .summary = "attention classifier without and with learned positions: accuracy",
          .course_order = 13,
          .params = with({d_model_param(32, "model width (embedding and attention)"),
                          n_heads_param(4),
                          {.name = "variants", .type = Type::StringList, .default_value = {"none", "learned"},
                           .doc = "rows: \"none\" (no positions) or \"learned\" (learned positions)",
                           .choices = {"none", "learned"}, .min_items = 1, .max_items = 8}},
                         training_params()),
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
