// Reading a spec file and checking it against its kind's declaration,
// before any work is done.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "spec/param.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::spec {

/// Parses `text` as one JSON object. Throws SpecError naming `file`, the
/// line and the column for malformed JSON, a NUL byte, nesting deeper than
/// kMaxDepth, a number beyond double's range ("1e309 is out of range") and a
/// key given twice in one object, and refuses a document that is not an object.
nlohmann::json parse_spec_text(const std::string& text, const std::string& file);

/// The value of `--set KEY=TEXT`: TEXT parsed as JSON when it is JSON, else
/// TEXT as a string (so `--set cell=lstm` reads naturally). Throws SpecError
/// naming "--set KEY" when TEXT nests deeper than kMaxDepth or holds a number
/// beyond double's range, as a spec file would be refused.
nlohmann::json parse_override_value(const std::string& key, const std::string& text);

/// Reads and parses `path`. Throws SpecError when it cannot be read (with
/// the system's reason), is not a regular file, or exceeds kMaxSpecBytes.
nlohmann::json read_spec_file(const std::string& path);

/// Checks every key of `doc` (except "experiment") against `params`:
/// unknown keys (with the closest valid key suggested), wrong JSON types,
/// values out of range, lists of the wrong length or with bad items. Returns
/// the spec with every missing parameter set to its default (keys sorted,
/// as nlohmann::json keeps them). Throws SpecError at the first
/// problem, with its JSON pointer.
nlohmann::json fill_and_check(const nlohmann::json& doc, const std::string& kind,
                              const std::vector<Param>& params, const std::string& file);

/// The candidate nearest to `word` by edit distance, ignoring case, or ""
/// when none is within a third of the word's length (plus one).
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

/// A JSON value as an error message shows it: scalars and short flat lists
/// in full, anything longer or nested summarised ("a list of 4097 items"),
/// without recursing, so a hostile value can neither flood the message nor
/// overflow the stack.
std::string show_value(const nlohmann::json& v);

/// Spec files larger than this are refused unread (no spec needs more).
inline constexpr std::size_t kMaxSpecBytes = 1 << 20;

/// Arrays and objects nested deeper than this are refused before parsing (no
/// parameter nests beyond 2; copying a value 60000 levels deep overflows the
/// stack).
inline constexpr int kMaxDepth = 64;

}  // namespace attnlab::spec
