// Running one kind on its spec file from experiments/ and reading the course's
// printed output from shared/course/, for the byte-for-byte table tests.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "experiments/registry.hpp"

namespace attnlab::testing {

/// The text of shared/course/<name>; throws with the path when missing.
inline std::string course_text(const std::string& name) {
  const std::string path = std::string(ATTNLAB_COURSE_DIR) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("course file missing: " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Loads experiments/<kind>.json with `overrides` (as `--set` would apply
/// them, so every spec check runs) and runs it.
inline experiments::Report run_kind(const std::string& kind,
                                    const nlohmann::json& overrides = nlohmann::json::object()) {
  const auto loaded =
      experiments::load_spec(std::string(ATTNLAB_EXPERIMENTS_DIR) + "/" + kind + ".json", overrides);
  return loaded.experiment->run(loaded.spec, experiments::RunContext{});
}

}  // namespace attnlab::testing
