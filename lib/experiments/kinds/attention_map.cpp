// Course day 7, "Reading what it attended to" (data/course/
// 19_attention_map.py): a one-head attention classifier, trained, then its
// attention weights on the first validation sequence. Position 0 looks at
// the later copy of its own digit when there is one.
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

models::AttentionClassifierConfig model_config(const nlohmann::json& spec) {
  models::AttentionClassifierConfig cfg;
  cfg.d_model = spec.at("d_model").get<int>();
  cfg.n_heads = spec.at("n_heads").get<int>();
  return cfg;
}

Report run(const nlohmann::json& spec, const RunContext& ctx) {
  const Datasets data = make_datasets(spec);
  const training::FitConfig fit = fit_config(spec);
  random::Generator init(spec.at("seed").get<std::uint64_t>());
  const int T = data.train.length;
  models::AttentionClassifier model(model_config(spec), init, max_batch(spec), T);
  training::FitResult result;
  // One row: run_parallel lends the threads it is not using to the row's split step.
  training::run_parallel(1, ctx.jobs, [&](int) { result = fit_row(model, data, fit, ctx, "attention_map", "accuracy"); });
  if (ctx.progress) ctx.progress(fmt::format("attention_map: trained in {:.1f} s", result.seconds));

  const int index = spec.at("sequence").get<int>();
  const std::int32_t* seq = data.val.tokens.data() + static_cast<std::size_t>(index) * T;
  Report r;
  r.text = "accuracy " + accuracy_cell(result, 0) + "\n\n";
  r.table = {.label_header = "", .columns = {{"accuracy", "accuracy", "%.4f"}}};  // the map itself is not aggregated
  r.table.add_row("", {result.accuracy});
  std::string digits;
  for (int t = 0; t < T; ++t) digits += std::to_string(seq[t]);
  r.text += report::printf("sequence %s, label %d\n", digits.c_str(), data.val.labels[index]);
  note_training(r, "accuracy", result);
  if (result.diverged) {  // the weights of a model that diverged are NaN: nothing to show
    r.text += "\nno attention weights: training diverged\n";
    r.data = {{"accuracy", nullptr}, {"seconds", result.seconds}, {"multiply_adds", result.multiply_adds},
              {"sequence", std::vector<std::int32_t>(seq, seq + T)}, {"label", data.val.labels[index]}};
    add_training_record(r.data, result);
    return r;
  }
  std::vector<float> w(static_cast<std::size_t>(T) * T);  // (1, T, T), averaged over heads
  model.attention_weights(seq, 1, w.data());
  r.text += "\nattention weights from each position:\n      ";
  for (int t = 0; t < T; ++t) r.text += report::printf(t ? " %5d" : "%5d", seq[t]);
  r.text += "\n";
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < T; ++i) {
    r.text += report::printf("%2d %2d  ", i, seq[i]);
    for (int j = 0; j < T; ++j) r.text += report::printf(j ? " %5.2f" : "%5.2f", w[i * T + j]);
    r.text += "\n";
    rows.push_back(std::vector<float>(w.begin() + i * T, w.begin() + (i + 1) * T));
  }
  r.data = {{"accuracy", result.accuracy},
            {"seconds", result.seconds},
            {"multiply_adds", result.multiply_adds},
            {"sequence", std::vector<std::int32_t>(seq, seq + T)},
            {"label", data.val.labels[index]},
            {"weights", rows}};
  add_training_record(r.data, result);
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int jobs) {
  const double T = spec.at("length").get<int>();
  MemoryEstimate e = training_memory(
      spec, jobs, {row_memory<models::AttentionClassifier>(spec, model_config(spec), "/d_model")}, "d_model");
  e.bytes += T * T * sizeof(float) * 2;  // the map and its JSON rows
  return e;
}

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file);
  if (spec.at("sequence").get<int>() >= spec.at("n_val").get<int>())
    throw spec::SpecError(file, "/sequence",
                          fmt::format("sequence {} is beyond the {} validation sequences; expected 0 to {}",
                                      spec.at("sequence").get<int>(), spec.at("n_val").get<int>(),
                                      spec.at("n_val").get<int>() - 1));
}

}  // namespace

Experiment attention_map_experiment() {
  using spec::Type;
  return {.name = "attention_map",
          .summary = "one-head attention classifier: accuracy and the attention weights of one validation sequence",
          .course_order = 19,
          .params = with({d_model_param(32, "model width"),
                          n_heads_param(1, "attention heads (weights are averaged over them); must divide d_model"),
                          {.name = "sequence", .type = Type::Integer, .default_value = 0,
                           .doc = "index of the validation sequence whose weights are shown", .min = 0,
                           .max = 10000000}},
                         training_params()),
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
