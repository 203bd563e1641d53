// Every experiment kind attnlab knows, and loading a spec for one.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "experiments/experiment.hpp"

namespace attnlab::experiments {

/// All kinds, in course order.
const std::vector<Experiment>& all_experiments();

/// The kind named `name`, or nullptr.
const Experiment* find_experiment(const std::string& name);

/// A spec ready to run: its file, its kind, and every parameter filled in.
struct LoadedSpec {
  std::string file;
  const Experiment* experiment = nullptr;
  nlohmann::json spec;
};

/// Reads `path`, applies `overrides` (an object of key -> value, from
/// `--set`), and checks everything before any work: JSON syntax, the
/// "experiment" key and its kind (listing the known kinds), unknown keys,
/// types, ranges and the kind's own rules. Throws spec::SpecError. A
/// "sweep" object is left out (`attnlab sweep` reads it; `run` runs the
/// spec it sweeps over).
LoadedSpec load_spec(const std::string& path, const nlohmann::json& overrides = nlohmann::json::object());

/// The same, for a document already parsed (tests, and specs built in code).
/// A refusal of a value that came from `overrides` names its source, not the
/// file: "--set lr (applied to FILE): at /lr: ..." (`overrides_source` is
/// "--set" for the CLI's overrides; "" keeps the file's name, as a sweep does,
/// whose message names the run and its values itself).
LoadedSpec check_spec(nlohmann::json doc, const std::string& file,
                      const nlohmann::json& overrides = nlohmann::json::object(),
                      const std::string& overrides_source = "--set");

}  // namespace attnlab::experiments
