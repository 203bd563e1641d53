#include "experiments/training_params.hpp"

#include "experiments/experiment.hpp"

namespace attnlab::experiments {

std::vector<spec::Param> training_params() {
  using spec::Type;
  return {
      {.name = "epochs", .type = Type::Integer, .default_value = 10, .doc = "passes over the training set",
       .min = 1, .max = 1000},
      {.name = "lr", .type = Type::Number, .default_value = 3e-3, .doc = "AdamW learning rate",
       .min = 1e-8, .max = 10},
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
      seed_param(),
  };
}

training::FitConfig fit_config(const nlohmann::json& spec) {
  training::FitConfig c;
  c.epochs = spec.at("epochs").get<int>();
  c.lr = spec.at("lr").get<double>();
  c.batch_size = spec.at("batch_size").get<int>();
  c.seed = spec.at("seed").get<std::uint64_t>();
  return c;
}

Datasets make_datasets(const nlohmann::json& spec) {
  const auto seed = spec.at("data_seed").get<std::uint64_t>();
  const int length = spec.at("length").get<int>();
  return {data::make_sequences(spec.at("n_train").get<int>(), length, seed),
          data::make_sequences(spec.at("n_val").get<int>(), length, seed + 1)};
}

std::vector<spec::Param> with(std::vector<spec::Param> base, const std::vector<spec::Param>& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

}  // namespace attnlab::experiments
