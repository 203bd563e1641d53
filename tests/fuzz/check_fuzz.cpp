// libFuzzer target: the --check comparer on two texts, the expected one,
// a NUL byte, then the printed one (no NUL: the text against itself). It
// must never crash, a text must never differ from itself, and each
// difference is described in a paragraph of its own ("  table ...").
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "report/check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  const std::string expected = input.substr(0, nul), actual = nul == std::string::npos ? expected : input.substr(nul + 1);
  const auto diffs = report::compare_tables(expected, actual);
  const std::string text = report::describe(diffs, "expected.txt");
  std::size_t paragraphs = 0;
  for (std::size_t at = text.find("\n  table "); at != std::string::npos; at = text.find("\n  table ", at + 1))
    ++paragraphs;
  if (paragraphs != diffs.size()) {
    std::fprintf(stderr, "%zu differences described in %zu paragraphs\n", diffs.size(), paragraphs);
    std::abort();
  }
  if (expected == actual && !diffs.empty()) std::abort();
  if (!report::compare_tables(actual, actual).empty()) std::abort();
  return 0;
}
