// Prints a libFuzzer dictionary of the spec language: every kind's name,
// every parameter's key (as a JSON key and as `--set KEY=`), every choice,
// and the JSON tokens around them. scripts/fuzz.sh writes it before each
// run, so a kind added later is in it without anyone remembering.
#include <cstdio>
#include <set>
#include <string>

#include "experiments/registry.hpp"

namespace {
// A dictionary entry: a C-escaped string in double quotes.
std::string entry(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<char>(c);
  }
  return out + "\"";
}
}  // namespace

int main() {
  std::set<std::string> words = {"{", "}", "[", "]", ":", ",", "true", "false", "null", "1e400", "-0", "0.5", "\"",
                                 "{\"experiment\": ", "\"experiment\"", "experiment="};
  for (const auto& e : attnlab::experiments::all_experiments()) {
    words.insert("\"" + e.name + "\"");
    for (const auto& p : e.params) {
      words.insert("\"" + p.name + "\": ");
      words.insert(p.name + "=");
      for (const auto& c : p.choices) words.insert("\"" + c + "\"");
      if (p.max) words.insert(std::to_string(static_cast<long long>(*p.max)));
    }
  }
  for (const auto& w : words) std::printf("%s\n", entry(w).c_str());
}
