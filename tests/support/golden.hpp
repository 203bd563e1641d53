// Reading golden files that scripts/ wrote with PyTorch (see data/README.md).
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::testing {

/// Parses data/<relative_path> as JSON; throws with the path when missing.
inline nlohmann::json load_golden(const std::string& relative_path) {
  const std::string path = std::string(ATTNLAB_DATA_DIR) + "/" + relative_path;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("golden file missing: " + path);
  return nlohmann::json::parse(in);
}

/// A flat list of numbers as float32 (golden floats are written as the exact
/// double of a float32, so this conversion is exact).
inline std::vector<float> as_floats(const nlohmann::json& j) {
  std::vector<float> v;
  v.reserve(j.size());
  for (const auto& x : j) v.push_back(static_cast<float>(x.get<double>()));
  return v;
}

}  // namespace attnlab::testing
