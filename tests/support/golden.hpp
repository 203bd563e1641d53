// Reading golden files that scripts/ wrote with PyTorch (see data/README.md).
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
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

/// The text of data/course/<name>: what the course prints (NN_*.course.txt) or
/// what its script prints under PyTorch 1.13 here (NN_*.torch113.txt), copied
/// from the course (data/README.md). Throws with the path when the file is
/// missing or empty, so a test can never compare "" with "".
inline std::string course_output(const std::string& name) {
  const std::string path = std::string(ATTNLAB_DATA_DIR) + "/course/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("course output missing: " + path);
  std::ostringstream s;
  s << in.rdbuf();
  if (s.str().empty()) throw std::runtime_error("course output empty: " + path);
  return s.str();
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
