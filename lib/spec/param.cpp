#include "spec/param.hpp"

#include <fmt/format.h>

namespace attnlab::spec {

namespace {
bool is_list(Type t) {
  return t == Type::IntegerList || t == Type::NumberList || t == Type::StringList;
}

std::string number_text(double v) {
  // Integers print without a fraction so "[1, 512]" reads as the user types it.
  if (v == static_cast<double>(static_cast<long long>(v))) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string range_text(const Param& p) {
  if (p.min && p.min_exclusive)
    return p.max ? fmt::format(" in ({}, {}]", number_text(*p.min), number_text(*p.max))
                 : fmt::format(" > {}", number_text(*p.min));
  if (p.min && p.max) return fmt::format(" in [{}, {}]", number_text(*p.min), number_text(*p.max));
  if (p.min) return fmt::format(" >= {}", number_text(*p.min));
  if (p.max) return fmt::format(" <= {}", number_text(*p.max));
  return "";
}

std::string choices_text(const Param& p) {
  std::string s;
  for (std::size_t i = 0; i < p.choices.size(); ++i) {
    if (i) s += ", ";
    s += "\"" + p.choices[i] + "\"";
  }
  return s;
}
}  // namespace

std::string type_name(Type t) {
  switch (t) {
    case Type::Integer: return "integer";
    case Type::Number: return "number";
    case Type::Boolean: return "boolean";
    case Type::String: return "string";
    case Type::IntegerList: return "list of integers";
    case Type::NumberList: return "list of numbers";
    case Type::StringList: return "list of strings";
  }
  return "?";
}

std::string describe_allowed(const Param& p) {
  switch (p.type) {
    case Type::Integer: return "an integer" + range_text(p);
    case Type::Number: return "a number" + range_text(p);
    case Type::Boolean: return "true or false";
    case Type::String:
      return p.choices.empty() ? "a string" : "one of " + choices_text(p);
    default: break;
  }
  std::string items = p.type == Type::IntegerList  ? "integers" + range_text(p)
                      : p.type == Type::NumberList ? "numbers" + range_text(p)
                      : p.choices.empty()          ? "strings"
                                                   : "strings from " + choices_text(p);
  // "each" only reads well when a constraint follows.
  if (p.type != Type::StringList && (p.min || p.max))
    items = (p.type == Type::IntegerList ? "integers, each" : "numbers, each") + range_text(p);
  (void)is_list;
  return fmt::format("a list of {} to {} {}", p.min_items, p.max_items, items);
}

}  // namespace attnlab::spec
