// The declaration of one experiment parameter: the single source from which
// `attnlab show`, `validate`, `list` and every spec error are produced.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace attnlab::spec {

/// JSON types a parameter may take. Lists are homogeneous JSON arrays.
enum class Type { Integer, Number, Boolean, String, IntegerList, NumberList, StringList };

/// One parameter of an experiment kind.
struct Param {
  std::string name;
  Type type = Type::Integer;
  nlohmann::json default_value;
  std::string doc;                    // one line, shown by `attnlab list` and in errors
  std::optional<double> min;          // inclusive (exclusive with min_exclusive); for lists, applies to each item
  std::optional<double> max;          // inclusive; for lists, applies to each item
  bool min_exclusive = false;         // min itself is not allowed: "a number > 0"
  std::vector<std::string> choices;   // allowed strings (String, StringList); empty = any
  std::size_t min_items = 1;          // lists only
  std::size_t max_items = 64;         // lists only
};

/// "an integer in [1, 4096]", "a list of 1 to 8 integers, each in [1, 512]",
/// "one of \"rnn\", \"lstm\"": the words an error uses for what is valid.
std::string describe_allowed(const Param& p);

/// The name of a Type as JSON speaks of it ("integer", "list of numbers").
std::string type_name(Type t);

}  // namespace attnlab::spec
