// The parameters every trained table shares: the course's fit() settings
// and its data.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "data/sequences.hpp"
#include "experiments/experiment.hpp"
#include "spec/param.hpp"
#include "training/fit.hpp"

namespace attnlab::experiments {

/// epochs, lr, batch_size, n_train, n_val, length, data_seed and seed, with
/// the course's defaults (10, 3e-3, 64, 8000, 2000, 8, 0, 0).
std::vector<spec::Param> training_params();

/// fit()'s settings from a checked spec.
training::FitConfig fit_config(const nlohmann::json& spec);

/// The course's training and validation sets: make_sequences(n_train,
/// length, data_seed) and make_sequences(n_val, length, data_seed + 1).
struct Datasets {
  data::Sequences train, val;
};
Datasets make_datasets(const nlohmann::json& spec);

/// What one trained row needs at once: its model (memory_bytes of the
/// model class at training::max_batch) and fit()'s buffers for it, and the
/// spec parameter that makes it large.
struct RowMemory {
  double bytes = 0;
  std::string parameter;  // JSON pointer, "/d_model" or "/hidden_sizes/3"
};

/// The peak of a trained table: the data (make_sequences' own peak while
/// each set is made) and the largest min(jobs, rows) rows training side by
/// side. Names /n_train (or /n_val) when the data dominate, else the
/// largest row's parameter; `reduce` lists the kind's own size parameters.
MemoryEstimate training_memory(const nlohmann::json& spec, int jobs, const std::vector<RowMemory>& rows,
                               const std::string& reduce);

/// The RowMemory of a row training a `Model` built with `cfg` (the model
/// classes of lib/models, which offer memory_bytes and parameter_count),
/// and, when fit() splits its steps, its replica for half a training batch.
template <class Model, class Config>
RowMemory row_memory(const nlohmann::json& spec, const Config& cfg, std::string parameter) {
  const training::FitConfig fit = fit_config(spec);
  const int n_train = spec.at("n_train").get<int>(), n_val = spec.at("n_val").get<int>();
  const int T = spec.at("length").get<int>(), B = training::max_batch(fit, n_train, n_val);
  // A split step trains its second half on a replica of the model with
  // buffers for half a training batch (split_step.hpp).
  const std::size_t replica =
      training::model_copies<Model>(fit.split_batch) == 2
          ? Model::memory_bytes(cfg, training::replica_batch(std::min(fit.batch_size, n_train)), T)
          : 0;
  return {static_cast<double>(Model::memory_bytes(cfg, B, T) + replica +
                              training::fit_memory_bytes(fit, Model::parameter_count(cfg), n_train, n_val, T)),
          std::move(parameter)};
}

/// training::max_batch for this spec's data: the batch capacity of its models.
int max_batch(const nlohmann::json& spec);

/// Appends `extra` to `base`; kinds list their own parameters first.
std::vector<spec::Param> with(std::vector<spec::Param> base, const std::vector<spec::Param>& extra);

}  // namespace attnlab::experiments
