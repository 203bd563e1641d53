// The parameters every trained table shares: the course's fit() settings
// and its data.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "data/sequences.hpp"
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

/// Appends `extra` to `base`; kinds list their own parameters first.
std::vector<spec::Param> with(std::vector<spec::Param> base, const std::vector<spec::Param>& extra);

}  // namespace attnlab::experiments
