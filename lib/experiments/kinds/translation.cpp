// Issue 13, "Translation with attention": the bottleneck at the sequence
// level (Bahdanau, Cho & Bengio 2015, Figure 2: RNNenc falls with sentence
// length, RNNsearch holds; Figure 3: alignments). The encoder-decoder
// without attention and the attention models train on the same sentences;
// each row prints its parameters, exact-sentence accuracy by source-length
// bucket (the last bucket longer than any training sentence) and training
// time, then the alignment of one validation sentence as text.
// The PyTorch twin is scripts/translation_models.py.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "data/translation.hpp"
#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "models/seq2seq.hpp"
#include "models/transformer_seq2seq.hpp"
#include "report/text.hpp"
#include "spec/spec_error.hpp"
#include "training/fit_translation.hpp"
#include "experiments/trained_rows.hpp"
#include "experiments/training_params.hpp"
#include "training/parallel.hpp"

namespace attnlab::experiments {

namespace {

std::string label_of(const std::string& model) {
  if (model == "rnnenc") return "encoder-decoder, no attention";
  if (model == "additive") return "additive attention (Bahdanau)";
  if (model == "dot") return "dot-product attention (Luong)";
  if (model == "transformer") return "transformer";
  return model;
}

// bucket_edges [a, b, c, ...] -> [a, b-1], [b, c-1], ...
std::vector<std::array<int, 2>> buckets_of(const nlohmann::json& spec) {
  const auto edges = spec.at("bucket_edges").get<std::vector<int>>();
  std::vector<std::array<int, 2>> b;
  for (std::size_t k = 0; k + 1 < edges.size(); ++k) b.push_back({edges[k], edges[k + 1] - 1});
  return b;
}

// A token as the alignment prints it: the digit of a word, </s> for EOS.
std::string token_text(std::int32_t id) {
  if (id == data::kEos) return "</s>";
  if (id == data::kBos) return "<s>";
  if (id == data::kPad) return "_";
  return std::to_string(id - data::kFirstWord);
}

std::string alignment_text(const std::string& title, const std::int32_t* src, int L,
                           const std::vector<std::int32_t>& pred, const std::vector<float>& w) {
  std::string t = title + "\n" + report::printf("%6s", "");
  for (int j = 0; j < L; ++j) t += report::printf("%5s", token_text(src[j]).c_str());
  t += "\n";
  for (int i = 0; i <= L; ++i) {
    t += report::printf("%6s", token_text(pred[i]).c_str());
    for (int j = 0; j < L; ++j) t += report::printf("%5.2f", w[static_cast<std::size_t>(i) * L + j]);
    t += "\n";
  }
  return t;
}

models::TransformerSeq2SeqConfig transformer_config(const nlohmann::json& spec) {
  models::TransformerSeq2SeqConfig cfg;
  cfg.vocab = data::kFirstWord + spec.at("n_words").get<int>();
  cfg.d_model = spec.at("d_model");
  cfg.n_heads = spec.at("n_heads");
  cfg.ff = 4 * cfg.d_model;
  cfg.n_layers = spec.at("n_layers");
  cfg.positions = spec.at("test_max_len").get<int>() + 1;
  return cfg;
}

models::Seq2SeqConfig model_config(const nlohmann::json& spec, const std::string& model) {
  models::Seq2SeqConfig cfg;
  cfg.kind = models::seq2seq_kind_from_name(model);
  cfg.vocab = data::kFirstWord + spec.at("n_words").get<int>();
  cfg.embed = spec.at("embed");
  cfg.hidden = spec.at("hidden_size");
  cfg.attn = spec.at("attn_size");
  return cfg;
}

training::TranslationFitConfig fit_config_of(const nlohmann::json& spec) {
  training::TranslationFitConfig fit;
  fit.epochs = spec.at("epochs");
  fit.lr = spec.at("lr");
  fit.lr_schedule = training::lr_schedule_from_name(spec.at("lr_schedule").get<std::string>());
  fit.batch_size = spec.at("batch_size");
  fit.teacher_forcing = spec.at("teacher_forcing");
  fit.seed = spec.at("seed").get<std::uint64_t>();
  fit.buckets = buckets_of(spec);
  fit.alignment_row = spec.at("alignment_sentence");
  return fit;
}

// The batch capacity of the models: a training batch or an evaluation batch,
// never more rows than the data hold.
int capacity_of(const nlohmann::json& spec, const training::TranslationFitConfig& fit) {
  return std::max(std::min(fit.batch_size, spec.at("n_train").get<int>()),
                  std::min(fit.eval_batch_size, spec.at("n_val").get<int>()));
}

// Measured cost order, for scheduling the rows on --jobs threads.
double cost_of(const std::string& model) {
  return model == "transformer" ? 4.0 : model == "additive" ? 3.0 : model == "dot" ? 2.0 : 1.0;
}

struct Outcome {
  std::size_t params = 0;
  training::TranslationFitResult fit;
};

Report run(const nlohmann::json& spec, const RunContext& ctx) {
  const auto task = data::translation_task_from_name(spec.at("task").get<std::string>());
  const int n_words = spec.at("n_words"), min_len = spec.at("min_len"), max_len = spec.at("max_len"),
            test_max_len = spec.at("test_max_len");
  const auto data_seed = spec.at("data_seed").get<std::uint64_t>();
  const auto train = data::make_translation(spec.at("n_train"), min_len, max_len, task, n_words, data_seed);
  const auto val = data::make_translation(spec.at("n_val"), min_len, test_max_len, task, n_words, data_seed + 1);
  const auto models = spec.at("models").get<std::vector<std::string>>();
  const training::TranslationFitConfig fit = fit_config_of(spec);
  const int capacity = capacity_of(spec, fit);
  std::vector<Outcome> out(models.size());
  std::vector<double> cost;
  for (const auto& m : models) cost.push_back(cost_of(m));
  training::run_parallel(static_cast<int>(models.size()), ctx.jobs, [&](int i) {
    random::Generator init(fit.seed);  // torch.manual_seed(seed); model = Model(...)
    training::TranslationFitConfig row_fit = fit;
    const std::string label = label_of(models[i]);
    if (ctx.row_progress) row_fit.on_step = ctx.row_progress("translation: " + label);
    if (models[i] == "transformer") {
      models::TransformerSeq2Seq model(transformer_config(spec), init, capacity, test_max_len);
      out[i].params = model.params.count();
      out[i].fit =
          training::fit_translation<models::TransformerSeq2Seq, models::Seq2SeqBatch>(model, train, val, row_fit);
    } else {
      models::Seq2Seq model(model_config(spec, models[i]), init, capacity, test_max_len);
      out[i].params = model.params.count();
      out[i].fit = training::fit_translation<models::Seq2Seq, models::Seq2SeqBatch>(model, train, val, row_fit);
    }
    report_training(ctx, "translation", label, out[i].fit);
    if (ctx.progress) ctx.progress(fmt::format("translation: {} done in {:.1f} s", label, out[i].fit.seconds));
  }, cost);

  Report r;
  const char* task_name = task == data::TranslationTask::Translation ? "dictionary + adjacent pairs swapped"
                          : task == data::TranslationTask::Copy      ? "copy"
                                                                     : "reverse";
  r.text = fmt::format("task: {}, {} words; trained on lengths {}-{}, tested up to {} (* = longer than any "
                       "training sentence); exact-sentence accuracy by source length\n",
                       task_name, n_words, min_len, max_len, test_max_len);
  r.table.label_header = "";
  r.table.label_left = true;
  r.table.columns.push_back({"params", "params", "%.0f"});
  r.text += report::printf("%-30s %8s", "", "params");
  for (const auto& b : fit.buckets) {
    const std::string h = fmt::format("{}-{}{}", b[0], b[1], b[0] > max_len ? "*" : "");
    r.text += report::printf(" %7s", h.c_str());
    r.table.columns.push_back({h, fmt::format("acc_{}_{}", b[0], b[1]), "%.3f"});
  }
  r.table.columns.push_back({"time", "seconds", "%.0fs", true});
  r.text += report::printf(" %7s\n", "time");
  r.data["rows"] = nlohmann::json::array();
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& f = out[i].fit;
    const std::string label = label_of(models[i]);
    std::vector<double> row{static_cast<double>(out[i].params)};
    r.text += report::printf("%-30s %8d", label.c_str(), static_cast<int>(out[i].params));
    if (f.diverged)  // no accuracy means anything after a loss that is not finite
      r.text += fmt::format(" {:<{}}", fmt::format("diverged at epoch {}, step {}", f.diverged->epoch,
                                                    f.diverged->step),
                            8 * static_cast<int>(f.bucket_accuracy.size()) - 1);
    for (double a : f.bucket_accuracy) {
      if (!f.diverged) r.text += std::isnan(a) ? report::printf(" %7s", "-") : report::printf(" %7.3f", a);
      row.push_back(a);
    }
    row.push_back(f.seconds);
    r.text += report::printf(" %6.0fs\n", f.seconds);
    r.table.add_row(label, row);
    r.data["rows"].push_back({{"model", models[i]},
                              {"label", label},
                              {"params", out[i].params},
                              {"bucket_accuracy", f.bucket_accuracy},
                              {"bucket_count", f.bucket_count},
                              {"accuracy", f.accuracy},
                              {"seconds", f.seconds}});
    add_training_record(r.data["rows"].back(), f);
    note_training(r, label, f);
  }
  // the alignment of one validation sentence, for every row that has one
  const int a = fit.alignment_row, L = val.src_len[a];
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (out[i].fit.alignment.empty()) continue;
    const std::string what = models[i] == "transformer" ? "cross-attention (last layer, mean over heads)"
                                                        : "alignment";
    r.text += "\n" + alignment_text(fmt::format("{}, {}: validation sentence {} (rows: greedy output, "
                                                "columns: source)", what, label_of(models[i]), a),
                                    val.src.data() + static_cast<std::size_t>(a) * val.max_len, L,
                                    out[i].fit.alignment_pred, out[i].fit.alignment);
    // rows = greedy output tokens, columns = source tokens, as the text prints
    // them, so `attnlab plot` can label the axes without the data set
    const std::int32_t* src = val.src.data() + static_cast<std::size_t>(a) * val.max_len;
    nlohmann::json weights = nlohmann::json::array(), source = nlohmann::json::array(),
                   output = nlohmann::json::array();
    for (int t = 0; t <= L; ++t) {
      weights.push_back(std::vector<float>(out[i].fit.alignment.begin() + static_cast<std::ptrdiff_t>(t) * L,
                                           out[i].fit.alignment.begin() + static_cast<std::ptrdiff_t>(t + 1) * L));
      output.push_back(token_text(out[i].fit.alignment_pred[static_cast<std::size_t>(t)]));
    }
    for (int j = 0; j < L; ++j) source.push_back(token_text(src[j]));
    r.data["rows"][i]["alignment"] = std::move(weights);
    r.data["rows"][i]["alignment_source"] = std::move(source);
    r.data["rows"][i]["alignment_output"] = std::move(output);
  }
  return r;
}

// Sentence pairs as data::make_translation holds them: src (n, max_len),
// tgt_in and tgt_out (n, max_len + 1), src_len (n), all int32.
double pairs_bytes(int n, int max_len) { return 4.0 * n * (3.0 * max_len + 3.0); }

MemoryEstimate memory(const nlohmann::json& spec, int jobs) {
  const training::TranslationFitConfig fit = fit_config_of(spec);
  const int n_train = spec.at("n_train"), n_val = spec.at("n_val"), test_max_len = spec.at("test_max_len");
  const int capacity = capacity_of(spec, fit), steps = test_max_len + 1;
  const double data_bytes = pairs_bytes(n_train, spec.at("max_len")) + pairs_bytes(n_val, test_max_len);
  std::vector<RowMemory> rows;
  for (const auto& m : spec.at("models").get<std::vector<std::string>>()) {
    double model = 0, n_params = 0;
    if (m == "transformer") {
      const auto cfg = transformer_config(spec);
      model = static_cast<double>(models::TransformerSeq2Seq::memory_bytes(cfg, capacity, test_max_len));
      n_params = static_cast<double>(models::TransformerSeq2Seq::parameter_count(cfg));
    } else {
      const auto cfg = model_config(spec, m);
      model = static_cast<double>(models::Seq2Seq::memory_bytes(cfg, capacity, test_max_len));
      n_params = static_cast<double>(models::Seq2Seq::parameter_count(cfg));
    }
    // fit_translation: AdamW's m and v, the batch, one epoch's order, greedy predictions and weights
    const double fit_bytes = 8.0 * n_params + 4.0 * capacity * (3.0 * test_max_len + 3.0) +
                             8.0 * std::max(n_train, n_val) + 4.0 * fit.eval_batch_size * steps * (1.0 + test_max_len);
    rows.push_back({model + fit_bytes, m == "transformer" ? "/d_model" : "/hidden_size"});
  }
  std::sort(rows.begin(), rows.end(), [](const RowMemory& a, const RowMemory& b) { return a.bytes > b.bytes; });
  const int at_once = std::max(1, std::min<int>(jobs, static_cast<int>(rows.size())));
  double training = 0;
  for (int i = 0; i < at_once && i < static_cast<int>(rows.size()); ++i) training += rows[i].bytes;
  MemoryEstimate e;
  e.bytes = data_bytes + training;
  e.threads = at_once;
  e.parameter = data_bytes >= training || rows.empty() ? (n_val > n_train ? "/n_val" : "/n_train")
                                                       : rows.front().parameter;
  e.reduce = "n_train, n_val, test_max_len, hidden_size, embed, attn_size, d_model or n_layers" +
             std::string(at_once > 1 ? " or --jobs" : "");
  return e;
}

void check(const nlohmann::json& spec, const std::string& file) {
  const int min_len = spec.at("min_len"), max_len = spec.at("max_len"), test_max_len = spec.at("test_max_len");
  if (max_len < min_len)
    throw spec::SpecError(file, "/max_len", fmt::format("must be >= min_len ({}), got {}", min_len, max_len));
  if (test_max_len < max_len)
    throw spec::SpecError(file, "/test_max_len",
                          fmt::format("must be >= max_len ({}), got {}", max_len, test_max_len));
  const auto edges = spec.at("bucket_edges").get<std::vector<int>>();
  for (std::size_t k = 1; k < edges.size(); ++k)
    if (edges[k] <= edges[k - 1])
      throw spec::SpecError(file, fmt::format("/bucket_edges/{}", k),
                            fmt::format("edges must increase, got {} after {}", edges[k], edges[k - 1]));
  const auto models = spec.at("models").get<std::vector<std::string>>();
  for (std::size_t i = 0; i < models.size(); ++i)  // a row twice would print twice and draw one figure for both
    for (std::size_t j = 0; j < i; ++j)
      if (models[i] == models[j])
        throw spec::SpecError(file, fmt::format("/models/{}", i),
                              fmt::format("\"{}\" is already row {}; each model runs once (a seed sweep runs it "
                                          "again: attnlab sweep ... seed=0,1,2)",
                                          models[i], j));
  if (spec.at("teacher_forcing").get<double>() < 1.0 &&
      std::find(models.begin(), models.end(), "transformer") != models.end())
    throw spec::SpecError(file, "/teacher_forcing",
                          fmt::format("the transformer row trains with teacher forcing 1 only (its decoder reads the "
                                      "whole reference at once), got {}; drop \"transformer\" from models or set 1",
                                      spec.at("teacher_forcing").get<double>()));
  if (spec.at("d_model").get<int>() % spec.at("n_heads").get<int>() != 0)
    throw spec::SpecError(file, "/n_heads",
                          fmt::format("must divide d_model ({}), got {}", spec.at("d_model").get<int>(),
                                      spec.at("n_heads").get<int>()));
  if (spec.at("alignment_sentence").get<int>() >= spec.at("n_val").get<int>())
    throw spec::SpecError(file, "/alignment_sentence",
                          fmt::format("must be < n_val ({})", spec.at("n_val").get<int>()));
}

}  // namespace

Experiment translation_experiment() {
  using spec::Type;
  return {.name = "translation",
          .summary = "encoder-decoder with and without attention on toy translation: accuracy by sentence length, alignments",
          .course_order = 40,
          .params = {{.name = "models", .type = Type::StringList, .default_value = {"rnnenc", "additive", "dot", "transformer"},
                      .doc = "rows, in order: rnnenc (no attention), additive (Bahdanau), dot (Luong), transformer",
                      .choices = {"rnnenc", "additive", "dot", "transformer"}, .max_items = 8},
                     {.name = "task", .type = Type::String, .default_value = "translation",
                      .doc = "translation (dictionary + adjacent pairs swapped), copy or reverse",
                      .choices = {"translation", "copy", "reverse"}},
                     {.name = "n_words", .type = Type::Integer, .default_value = 10,
                      .doc = "distinct words (digits) of the source and target", .min = 2, .max = 1000},
                     {.name = "min_len", .type = Type::Integer, .default_value = 4,
                      .doc = "shortest sentence (words)", .min = 1, .max = 500},
                     {.name = "max_len", .type = Type::Integer, .default_value = 16,
                      .doc = "longest training sentence (words)", .min = 1, .max = 500},
                     {.name = "test_max_len", .type = Type::Integer, .default_value = 20,
                      .doc = "longest validation sentence; above max_len they are longer than any trained",
                      .min = 1, .max = 500},
                     {.name = "bucket_edges", .type = Type::IntegerList,
                      .default_value = {4, 8, 11, 14, 17, 21},
                      .doc = "source-length buckets [e0, e1-1], [e1, e2-1], ...", .min = 1, .max = 501,
                      .min_items = 2, .max_items = 16},
                     {.name = "n_train", .type = Type::Integer, .default_value = 6000,
                      .doc = "training sentence pairs", .min = 1, .max = 10000000},
                     {.name = "n_val", .type = Type::Integer, .default_value = 1000,
                      .doc = "validation sentence pairs", .min = 1, .max = 10000000},
                     {.name = "data_seed", .type = Type::Integer, .default_value = 0,
                      .doc = "seed of the training pairs (validation: data_seed + 1)", .min = 0, .max = 4294967294.0},
                     {.name = "embed", .type = Type::Integer, .default_value = 32,
                      .doc = "embedding width of source and target words", .min = 1, .max = 4096},
                     {.name = "hidden_size", .type = Type::Integer, .default_value = 64,
                      .doc = "GRU hidden size (per direction in the bidirectional encoder)", .min = 1, .max = 4096},
                     {.name = "attn_size", .type = Type::Integer, .default_value = 64,
                      .doc = "width A of the additive alignment network", .min = 1, .max = 4096},
                     d_model_param(64, "width of the transformer row (feed-forward 4 d_model)", 1, 4096),
                     n_heads_param(4, "attention heads of the transformer row; must divide d_model"),
                     {.name = "n_layers", .type = Type::Integer, .default_value = 2,
                      .doc = "encoder blocks and decoder layers of the transformer row", .min = 1, .max = 24},
                     {.name = "epochs", .type = Type::Integer, .default_value = 16,
                      .doc = "passes over the training set", .min = 1, .max = 100000},
                     {.name = "lr", .type = Type::Number, .default_value = 3e-3, .doc = "AdamW learning rate",
                      .min = 0, .min_exclusive = true},
                     {.name = "lr_schedule", .type = Type::String, .default_value = "cosine",
                      .doc = "learning rate over the run's steps: cosine (lr * (1 + cos(pi * step / steps)) / 2, "
                             "ending near 0) or constant",
                      .choices = {"cosine", "constant"}},
                     {.name = "batch_size", .type = Type::Integer, .default_value = 64,
                      .doc = "training mini-batch size", .min = 1, .max = 65536},
                     {.name = "teacher_forcing", .type = Type::Number, .default_value = 1.0,
                      .doc = "chance per decoder step of feeding the reference word (else the model's argmax)",
                      .min = 0, .max = 1},
                     {.name = "alignment_sentence", .type = Type::Integer, .default_value = 0,
                      .doc = "index of the validation sentence whose alignment is printed", .min = 0,
                      .max = 10000000},
                     seed_param()},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
