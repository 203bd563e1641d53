// libFuzzer target: bytes -> spec, as `attnlab validate` reads a file. Any
// input must either load (and then satisfy spec_invariants.hpp) or be
// refused with a spec::SpecError; anything else escaping is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "spec/validate.hpp"
#include "spec_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  if (size > spec::kMaxSpecBytes) return 0;  // refused unread by read_spec_file
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto loaded = experiments::check_spec(spec::parse_spec_text(text, "fuzz.json"), "fuzz.json");
    fuzz::check_loaded(loaded);
  } catch (const spec::SpecError&) {
  }
  return 0;
}
