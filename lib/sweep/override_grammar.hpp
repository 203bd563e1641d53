// The sweep override grammar: what `attnlab sweep SPEC KEY=VALUES...` and a
// spec's "sweep" block accept. It follows Hydra's basic sweeper
// (https://hydra.cc/docs/advanced/override_grammar/extended):
//
//   seed=3                      one value: a fixed override
//   seed=0,1,2                  a choice sweep: values split at top-level commas
//   seed=choice(0,1,2)          the same, spelled out
//   seed=range(5)               0,1,2,3,4 (end excluded, as Python's range)
//   seed=range(0,10,2)          0,2,4,6,8; with a number anywhere, a float range
//   lr=1e-3,3e-3                values are JSON where they parse as JSON,
//   cell=lstm,gru               else plain strings (Hydra's unquoted strings)
//   'variants=["none"],["learned"]'   commas inside [..] {..} or quotes do not split
//   name='a,b'                  a quoted string keeps its commas
//
// Hydra's +key / ~key (add or delete a config key) have no meaning for
// attnlab's declared spec keys and are refused with that reason.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace attnlab::sweep {

/// One parsed KEY=VALUES argument.
struct Override {
  std::string key;
  std::vector<nlohmann::json> values;  // in the order given; one value = a fixed override
};

/// Parses "KEY=VALUES". Throws spec::SpecError (exit 2) naming the argument,
/// the part that is wrong and what would be valid.
Override parse_override(const std::string& argument);

/// Parses the VALUES part alone; `where` names it in errors ("seed=..." on
/// the command line, "FILE: at /sweep/seed" in a spec).
std::vector<nlohmann::json> parse_values(const std::string& text, const std::string& where);

/// A sweep axis from a spec's "sweep" block: a JSON list of values, or a
/// string in the grammar above ("range(0,5)"). Throws spec::SpecError.
std::vector<nlohmann::json> values_from_spec(const nlohmann::json& entry, const std::string& file,
                                             const std::string& key);

/// A value as an override shows it: strings bare, everything else as JSON
/// ("seed=3", "cell=lstm", "hidden_sizes=[2,4]").
std::string show(const nlohmann::json& value);

/// More values than this in one axis are refused (a typo such as
/// range(0,1e9) should not plan a billion runs).
inline constexpr std::size_t kMaxValues = 100000;

}  // namespace attnlab::sweep
