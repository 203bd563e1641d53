// Course day 3, "Several heads" (data/course/06_mha_shapes.py and
// 07_heads_differ.py): untrained, the heads of one layer already look at
// different positions; trained, splitting d_model into more heads costs no
// parameters and no multiply-adds, and the table shows what it buys.
#include <fmt/format.h>

#include <algorithm>

#include <cmath>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/trained_rows.hpp"
#include "experiments/training_params.hpp"
#include "models/attention_classifier.hpp"
#include "kernels/cost.hpp"
#include "kernels/linear.hpp"
#include "kernels/multihead_attention.hpp"
#include "report/text.hpp"
#include "spec/spec_error.hpp"
#include "tensor/row_ops.hpp"
#include "training/parallel.hpp"

namespace attnlab::experiments {

namespace {

// Script 07: qkv = nn.Linear(C, 3C); x = randn(1, T, C); per head h the
// softmax of position 0's scaled scores against every position.
std::string untrained_rows(random::Generator& g, int C, int H, int T, nlohmann::json& data) {
  std::vector<float> w(static_cast<std::size_t>(3) * C * C), b(3 * C), x(static_cast<std::size_t>(T) * C),
      qkv(static_cast<std::size_t>(T) * 3 * C);
  kernels::linear_init(g, w.data(), b.data(), C, 3 * C);
  g.normal(x.data(), x.size());
  kernels::linear_forward(qkv.data(), x.data(), w.data(), b.data(), T, C, 3 * C);  // (T, 3C) = [q | k | v]
  const int D = C / H;
  // PyTorch divides the float32 scores by the Python float hd ** 0.5.
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(D)));
  std::string text;
  data["untrained"] = nlohmann::json::array();
  std::vector<float> row(T);
  for (int h = 0; h < H; ++h) {
    const float* q0 = qkv.data() + h * D;  // position 0, head h
    for (int j = 0; j < T; ++j) {
      const float* kj = qkv.data() + static_cast<std::size_t>(j) * 3 * C + C + h * D;
      float s = 0;
      for (int e = 0; e < D; ++e) s += q0[e] * kj[e];
      row[j] = s / scale;
    }
    tensor::softmax_inplace(row.data(), row.size());
    text += report::printf("head %d, what position 0 looks at:", h);
    for (float v : row) text += report::printf(" %.2f", v);
    text += "\n";
    data["untrained"].push_back(row);
  }
  return text;
}

models::AttentionClassifierConfig model_config(int C, int heads) {
  models::AttentionClassifierConfig cfg;
  cfg.d_model = C;
  cfg.n_heads = heads;
  return cfg;
}

Report run(const nlohmann::json& spec, const RunContext& ctx) {
  const int C = spec.at("d_model").get<int>();
  Report r;
  {
    random::Generator g(spec.at("seed").get<std::uint64_t>());
    const int H = spec.at("untrained_heads").get<int>();
    const int T = spec.at("untrained_length").get<int>();
    r.text = untrained_rows(g, C, H, T, r.data);
    // The sentence says what the printed rows show: the course's words when
    // every row differs, others when some print alike (one position: every
    // weight is 1.00).
    std::vector<std::string> rows;
    for (std::size_t at = 0, end; (end = r.text.find('\n', at)) != std::string::npos; at = end + 1)
      rows.push_back(r.text.substr(r.text.find(':', at) + 1, end - r.text.find(':', at) - 1));
    std::sort(rows.begin(), rows.end());
    const auto distinct = static_cast<int>(std::unique(rows.begin(), rows.end()) - rows.begin());
    r.text += "\nuntrained, so the pattern is arbitrary. ";
    if (H == 1)
      r.text += "The point is that the\nsingle row is what one head gives; more heads give more patterns.\n";
    else if (distinct == H)
      r.text += fmt::format("The point is that the\n{} rows differ, which one head could not produce.\n",
                            H == 4 ? std::string("four") : std::to_string(H));
    else if (distinct == 1)
      r.text += fmt::format("Here all {} rows print the same{},\nso they cannot show heads that differ.\n", H,
                            T == 1 ? " (one position: every weight is 1.00)" : "");
    else
      r.text += fmt::format("Here the {} rows show {} different\npatterns; one head could only produce one.\n", H,
                            distinct);
    r.data["distinct_untrained_rows"] = distinct;
  }
  const auto heads = spec.at("heads").get<std::vector<int>>();
  if (heads.empty()) return r;

  const Datasets data = make_datasets(spec);
  const training::FitConfig fit = fit_config(spec);
  const int T = data.train.length, B = spec.at("batch_size").get<int>();
  std::vector<training::FitResult> results(heads.size());
  training::run_parallel(static_cast<int>(heads.size()), ctx.jobs, [&](int i) {
    random::Generator init(spec.at("seed").get<std::uint64_t>());
    models::AttentionClassifier model(model_config(C, heads[i]), init, max_batch(spec), T);
    results[i] = fit_row(model, data, fit, ctx, "heads", std::to_string(heads[i]));
    if (ctx.progress) ctx.progress(fmt::format("heads: {} head(s) done in {:.1f} s", heads[i], results[i].seconds));
  });
  r.text += report::printf("\n%8s %12s %14s %10s %9s\n", "heads", "attn params", "mult-adds", "accuracy", "time");
  r.data["rows"] = nlohmann::json::array();
  const std::size_t macs = kernels::mha_forward_macs(B, T, T, C);
  r.table = {.label_header = "heads",
             .columns = {{"attn params", "attention_params", "%.0f"},
                         {"mult-adds", "multiply_adds", "%.0f"},
                         {"accuracy", "accuracy", "%.4f"},
                         {"time", "seconds", "%.0fs", true}}};
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const std::size_t params = kernels::mha_parameter_count(C);
    r.table.add_row(std::to_string(heads[i]), {static_cast<double>(params), static_cast<double>(macs),
                                               results[i].accuracy, results[i].seconds});
    r.text += report::printf("%8d %12d %14lld ", heads[i], static_cast<int>(params), static_cast<long long>(macs)) +
              accuracy_cell(results[i], 10) + report::printf(" %8.0fs\n", results[i].seconds);
    nlohmann::json row = {{"heads", heads[i]},
                          {"attention_params", params},
                          {"multiply_adds", macs},
                          {"accuracy", results[i].accuracy},
                          {"seconds", results[i].seconds},
                          {"training_multiply_adds", results[i].multiply_adds}};
    add_training_record(row, results[i]);
    r.data["rows"].push_back(row);
    note_training(r, std::to_string(heads[i]), results[i]);
  }
  r.text += report::printf("\nmult-adds: one forward pass of the attention layer on a batch of %d x %d.\n", B, T);
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int jobs) {
  const double C = spec.at("d_model").get<int>(), T = spec.at("untrained_length").get<int>();
  const double untrained = (3 * C * C + 3 * C + T * C + 3 * T * C + T) * sizeof(float);  // w, b, x, qkv, row
  const auto heads = spec.at("heads").get<std::vector<int>>();
  if (heads.empty()) return {untrained, 1, "/d_model", "d_model"};
  std::vector<RowMemory> rows;
  for (std::size_t i = 0; i < heads.size(); ++i)
    rows.push_back(row_memory<models::AttentionClassifier>(spec, model_config(spec.at("d_model").get<int>(), heads[i]),
                                                           fmt::format("/heads/{}", i)));
  MemoryEstimate e = training_memory(spec, jobs, rows, "d_model or heads");
  e.bytes = std::max(e.bytes, untrained);
  return e;
}

void check(const nlohmann::json& spec, const std::string& file) {
  const int C = spec.at("d_model").get<int>();
  const auto heads = spec.at("heads").get<std::vector<int>>();
  for (std::size_t i = 0; i < heads.size(); ++i)
    if (C % heads[i] != 0)
      throw spec::SpecError(file, fmt::format("/heads/{}", i),
                            fmt::format("{} heads do not divide d_model {}; each must be a divisor of d_model",
                                        heads[i], C));
  if (C % spec.at("untrained_heads").get<int>() != 0)
    throw spec::SpecError(file, "/untrained_heads",
                          fmt::format("{} heads do not divide d_model {}", spec.at("untrained_heads").get<int>(), C));
}

}  // namespace

Experiment heads_experiment() {
  using spec::Type;
  return {.name = "heads",
          .summary = "multi-head attention: untrained heads differ; trained, more heads cost nothing extra",
          .course_order = 7,
          .params = with({d_model_param(32, "attention width"),
                          {.name = "heads", .type = Type::IntegerList, .default_value = {1, 2, 4, 8},
                           .doc = "head counts to train and compare, one row each (empty: untrained part only)",
                           .min = 1, .max = 64, .min_items = 0, .max_items = 16},
                          {.name = "untrained_heads", .type = Type::Integer, .default_value = 4,
                           .doc = "heads of the untrained layer (script 07)", .min = 1, .max = 64},
                          {.name = "untrained_length", .type = Type::Integer, .default_value = 6,
                           .doc = "positions of the untrained layer's input (script 07)", .min = 1, .max = 64}},
                         training_params()),
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
