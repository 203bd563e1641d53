#include "experiments/common_params.hpp"
#include "experiments/training_params.hpp"

#include <algorithm>

#include "experiments/experiment.hpp"

namespace attnlab::experiments {

std::vector<spec::Param> training_params() {
  using spec::Type;
  return {
      {.name = "epochs", .type = Type::Integer, .default_value = 10, .doc = "passes over the training set",
       .min = 1, .max = 1000},
      // Any positive finite rate, as torch.optim.AdamW takes: a rate that
      // diverges is named by the run (experiments/trained_rows.hpp), not refused.
      {.name = "lr", .type = Type::Number, .default_value = 3e-3, .doc = "AdamW learning rate",
       .min = 0, .min_exclusive = true},
      {.name = "batch_size", .type = Type::Integer, .default_value = 64, .doc = "training mini-batch size",
       .min = 1, .max = 8192},
      {.name = "n_train", .type = Type::Integer, .default_value = 8000, .doc = "training sequences",
       .min = 1, .max = 10000000},
      {.name = "n_val", .type = Type::Integer, .default_value = 2000, .doc = "validation sequences",
       .min = 1, .max = 10000000},
      {.name = "length", .type = Type::Integer, .default_value = 8,
       .doc = "digits per sequence (at most 16, the attention models' position table)", .min = 2, .max = 16},
      {.name = "data_seed", .type = Type::Integer, .default_value = 0,
       .doc = "make_sequences seed of the training set (validation uses data_seed + 1)", .min = 0,
       .max = 4294967294.0},
      // Default on: the result is the same for every --jobs either way
      // (training/split_step.hpp); off trains each batch in one piece, as PyTorch sums it.
      {.name = "split_batch", .type = Type::Boolean, .default_value = true,
       .doc = "train each batch in two fixed halves, so that a core no row uses takes one (the same bytes on any "
              "--jobs); false: in one piece"},
      seed_param(),
  };
}

training::FitConfig fit_config(const nlohmann::json& spec) {
  training::FitConfig c;
  c.epochs = spec.at("epochs").get<int>();
  c.lr = spec.at("lr").get<double>();
  c.batch_size = spec.at("batch_size").get<int>();
  c.seed = spec.at("seed").get<std::uint64_t>();
  c.split_batch = spec.at("split_batch").get<bool>();
  return c;
}

Datasets make_datasets(const nlohmann::json& spec) {
  const auto seed = spec.at("data_seed").get<std::uint64_t>();
  const int length = spec.at("length").get<int>();
  return {data::make_sequences(spec.at("n_train").get<int>(), length, seed),
          data::make_sequences(spec.at("n_val").get<int>(), length, seed + 1)};
}

int max_batch(const nlohmann::json& spec) {
  return training::max_batch(fit_config(spec), spec.at("n_train").get<int>(), spec.at("n_val").get<int>());
}

MemoryEstimate training_memory(const nlohmann::json& spec, int jobs, const std::vector<RowMemory>& rows,
                               const std::string& reduce) {
  const int n_train = spec.at("n_train").get<int>(), n_val = spec.at("n_val").get<int>();
  const int length = spec.at("length").get<int>();
  const double train = static_cast<double>(data::sequences_bytes(n_train, length));
  const double data_bytes = train + static_cast<double>(data::sequences_bytes(n_val, length));
  // make_datasets: the training set is made first, then the validation set beside it.
  const double making = std::max(static_cast<double>(data::make_sequences_peak_bytes(n_train, length)),
                                 train + static_cast<double>(data::make_sequences_peak_bytes(n_val, length)));
  std::vector<RowMemory> sorted = rows;
  std::sort(sorted.begin(), sorted.end(), [](const RowMemory& a, const RowMemory& b) { return a.bytes > b.bytes; });
  const int at_once = std::max(1, std::min<int>(jobs, static_cast<int>(sorted.size())));
  double training = 0;
  for (int i = 0; i < at_once && i < static_cast<int>(sorted.size()); ++i) training += sorted[i].bytes;
  MemoryEstimate e;
  e.bytes = std::max(making, data_bytes + training);
  e.threads = at_once;
  const bool data_dominate = sorted.empty() || data_bytes >= training;
  e.parameter = data_dominate ? (n_val > n_train ? "/n_val" : "/n_train") : sorted.front().parameter;
  e.reduce = "n_train, n_val, batch_size" + (reduce.empty() ? std::string() : ", " + reduce) +
             (at_once > 1 ? " or --jobs" : "");
  return e;
}

std::vector<spec::Param> with(std::vector<spec::Param> base, const std::vector<spec::Param>& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

}  // namespace attnlab::experiments
