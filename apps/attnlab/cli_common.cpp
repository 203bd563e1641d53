#include "cli_common.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "report/atomic_file.hpp"
#include "spec/spec_error.hpp"
#include "spec/validate.hpp"

namespace attnlab::cli {

using nlohmann::json;

namespace {
bool valid_utf8(const std::string& s) {
  try {
    (void)json(s).dump();  // nlohmann validates UTF-8 when it writes a string
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}
}  // namespace

json parse_overrides(const std::vector<std::string>& sets) {
  json overrides = json::object();
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw CLI::ValidationError("--set", "expected KEY=VALUE, got '" + s + "'");
    const std::string key = s.substr(0, eq), text = s.substr(eq + 1);
    // A spec is JSON, which is UTF-8: bytes of another encoding (a Latin-1
    // terminal) would otherwise fail only when the resolved spec is written.
    if (!valid_utf8(s))
      throw CLI::ValidationError("--set", "'" + json(s).dump(-1, ' ', true, json::error_handler_t::replace) +
                                              "' is not UTF-8 text; a spec's keys and values are UTF-8");
    overrides[key] = spec::parse_override_value(key, text);  // moved in: a deep copy could overflow the stack
  }
  return overrides;
}

std::optional<std::vector<experiments::LoadedSpec>> load_all(const std::vector<std::string>& files,
                                                             const json& overrides) {
  std::vector<experiments::LoadedSpec> specs;
  bool refused = false;
  for (const auto& f : files) {
    try {
      specs.push_back(experiments::load_spec(f, overrides));
    } catch (const spec::SpecError& e) {
      std::cerr << "attnlab: error: " << e.what() << "\n";
      refused = true;
    }
  }
  if (refused) return std::nullopt;
  return specs;
}

void check_output_path(const std::string& path, const std::vector<std::string>& inputs) {
  try {
    report::check_output_path(path, inputs);
  } catch (const report::OutputRefused& e) {
    throw CLI::ValidationError("--output", e.what());
  }
}

void write_stdout(const std::string& text) {
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  if (std::fflush(stdout) != 0 || !written)
    throw std::runtime_error(std::string("could not write the output to stdout: ") + std::strerror(errno));
}

}  // namespace attnlab::cli
