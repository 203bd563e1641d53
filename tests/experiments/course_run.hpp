// Running one kind on its spec file from experiments/ and reading the course's
// printed output from data/course/, for the byte-for-byte table tests.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "experiments/registry.hpp"
#include "support/golden.hpp"

namespace attnlab::testing {

/// The text of data/course/<name> (support/golden.hpp); throws when missing.
inline std::string course_text(const std::string& name) { return course_output(name); }

/// Loads experiments/<kind>.json with `overrides` (as `--set` would apply
/// them, so every spec check runs) and runs it.
inline experiments::Report run_kind(const std::string& kind,
                                    const nlohmann::json& overrides = nlohmann::json::object()) {
  const auto loaded =
      experiments::load_spec(std::string(ATTNLAB_EXPERIMENTS_DIR) + "/" + kind + ".json", overrides);
  return loaded.experiment->run(loaded.spec, experiments::RunContext{});
}

}  // namespace attnlab::testing
