// libFuzzer target: `--set` overrides applied to a spec, as `attnlab run
// FILE --set ...` loads it. The input is the overrides, one per line, then
// a NUL byte, then the spec's text (no NUL: overrides only, on
// experiments/positions.json's text). A bad --set must be refused with
// CLI::ValidationError or spec::SpecError, as the CLI maps both to exit 2.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "cli_common.hpp"
#include "spec/validate.hpp"
#include "spec_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  if (size > spec::kMaxSpecBytes) return 0;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  const std::string sets = input.substr(0, nul);
  const std::string text = nul == std::string::npos ? R"({"experiment": "positions"})" : input.substr(nul + 1);
  std::vector<std::string> lines;
  std::istringstream in(sets);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  try {
    const auto overrides = cli::parse_overrides(lines);
    const auto loaded = experiments::check_spec(spec::parse_spec_text(text, "fuzz.json"), "fuzz.json", overrides);
    fuzz::check_loaded(loaded);
  } catch (const spec::SpecError&) {
  } catch (const CLI::ValidationError&) {
  }
  return 0;
}
