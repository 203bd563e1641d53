// libFuzzer target: the `--set KEY=VALUE` parser alone, one argument per
// line of the input. It either returns an object with a value for each
// KEY given (the last one wins) or refuses with CLI::ValidationError (no
// KEY=VALUE shape, not UTF-8) or spec::SpecError (a number beyond double's
// range, nesting too deep), both of which main() turns into exit 2.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "cli_common.hpp"
#include "spec/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  if (size > (1 << 16)) return 0;  // a command line is not longer (ARG_MAX per argument is 128 KiB)
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  std::istringstream in(input);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  try {
    const nlohmann::json overrides = cli::parse_overrides(lines);
    if (!overrides.is_object()) std::abort();
    for (const auto& [key, value] : overrides.items()) {
      if (key.empty()) std::abort();
      (void)value.dump();  // every value can be shown (and so written to a resolved spec)
    }
  } catch (const CLI::ValidationError&) {
  } catch (const spec::SpecError&) {
  }
  return 0;
}
