#include "sweep/override_grammar.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "spec/spec_error.hpp"

namespace attnlab::sweep {

using nlohmann::json;

namespace {

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

[[noreturn]] void refuse(const std::string& where, const std::string& problem) {
  throw spec::SpecError(where, "", problem);
}

// Splits at commas outside brackets, braces, parentheses and quotes.
std::vector<std::string> split_top_level(const std::string& text, const std::string& where) {
  std::vector<std::string> parts;
  std::string closers;  // the closing brackets expected, innermost last
  char quote = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\' && quote == '"') ++i;  // JSON escape: skip the escaped character
      else if (c == quote) quote = 0;
      continue;
    }
    switch (c) {
      case '"': case '\'': quote = c; break;
      case '[': closers += ']'; break;
      case '{': closers += '}'; break;
      case '(': closers += ')'; break;
      case ']': case '}': case ')':
        if (closers.empty() || closers.back() != c)
          refuse(where, fmt::format("unbalanced '{}' at character {} of \"{}\"", c, i + 1, text));
        closers.pop_back();
        break;
      case ',':
        if (closers.empty()) {
          parts.push_back(text.substr(start, i - start));
          start = i + 1;
        }
        break;
      default: break;
    }
  }
  if (quote) refuse(where, fmt::format("the quote {} in \"{}\" is never closed", quote, text));
  if (!closers.empty()) refuse(where, fmt::format("'{}' missing at the end of \"{}\"", closers.back(), text));
  parts.push_back(text.substr(start));
  return parts;
}

json parse_element(const std::string& raw, const std::string& where) {
  const std::string e = trim(raw);
  if (e.empty()) refuse(where, "an empty value (two commas in a row, or one at the end?)");
  if (e.front() == '\'') {  // Hydra's single-quoted string: kept verbatim, commas included
    if (e.size() < 2 || e.back() != '\'') refuse(where, "the quote ' in " + e + " is never closed");
    return e.substr(1, e.size() - 2);
  }
  json v = json::parse(e, nullptr, false);
  if (!v.is_discarded()) {
    if (v.is_number_float() && !std::isfinite(v.get<double>()))
      refuse(where, e + " is beyond the range of a double");
    return v;
  }
  char* end = nullptr;
  std::strtod(e.c_str(), &end);  // a number JSON refused: one beyond a double's range
  if (end == e.c_str() + e.size()) refuse(where, e + " is beyond the range of a double");
  if (e.front() == '[' || e.front() == '{' || e.front() == '"')
    refuse(where, e + " is not valid JSON (strings inside a list need double quotes: '[\"none\",\"learned\"]')");
  return e;  // an unquoted string, as Hydra reads lstm or gru
}

std::optional<std::string> call_arguments(const std::string& e, const std::string& name) {
  if (e.size() < name.size() + 2 || e.compare(0, name.size() + 1, name + "(") != 0 || e.back() != ')')
    return std::nullopt;
  return e.substr(name.size() + 1, e.size() - name.size() - 2);
}

// %.12g: range(0, 1, 0.1) gives 0.3, not 0.30000000000000004.
double tidy(double v) { return std::stod(fmt::format("{:.12g}", v)); }

std::vector<json> expand_range(const std::string& inner, const std::string& where) {
  const std::string usage = "range takes 1 to 3 numbers: range(stop), range(start, stop) or range(start, stop, step)";
  std::vector<json> args;
  for (const auto& a : split_top_level(inner, where)) {
    const json v = json::parse(trim(a), nullptr, false);
    if (v.is_discarded() || !v.is_number() || !std::isfinite(v.get<double>()))
      refuse(where, fmt::format("range(): \"{}\" is not a number; {}", trim(a), usage));
    args.push_back(v);
  }
  if (args.empty() || args.size() > 3) refuse(where, usage);
  const json start = args.size() >= 2 ? args[0] : json(0);
  const json stop = args.size() >= 2 ? args[1] : args[0];
  const json step = args.size() == 3 ? args[2] : json(1);
  std::vector<json> out;
  if (start.is_number_integer() && stop.is_number_integer() && step.is_number_integer()) {
    const auto a = start.get<std::int64_t>(), b = stop.get<std::int64_t>(), s = step.get<std::int64_t>();
    if (s == 0) refuse(where, "range(): the step is 0");
    const long double count = s > 0 ? std::ceil(static_cast<long double>(b - a) / s)
                                    : std::ceil(static_cast<long double>(a - b) / -s);
    if (count > static_cast<long double>(kMaxValues))
      refuse(where, fmt::format("range({}) has {:.0Lf} values; at most {} are allowed", inner, count, kMaxValues));
    for (std::int64_t v = a; s > 0 ? v < b : v > b; v += s) out.push_back(v);
  } else {
    const double a = start.get<double>(), b = stop.get<double>(), s = step.get<double>();
    if (s == 0) refuse(where, "range(): the step is 0");
    const double count = std::ceil((b - a) / s);
    if (count > static_cast<double>(kMaxValues))
      refuse(where, fmt::format("range({}) has {:.0f} values; at most {} are allowed", inner, count, kMaxValues));
    for (std::size_t i = 0;; ++i) {
      const double v = tidy(a + static_cast<double>(i) * s);  // multiplied, not summed: no drift
      if (s > 0 ? v >= b : v <= b) break;
      out.push_back(v);
    }
  }
  if (out.empty()) refuse(where, "range(" + inner + ") is empty");
  return out;
}

}  // namespace

std::vector<json> parse_values(const std::string& text, const std::string& where) {
  if (trim(text).empty()) refuse(where, "no value after '='");
  std::vector<json> values;
  for (const auto& part : split_top_level(text, where)) {
    const std::string e = trim(part);
    if (auto inner = call_arguments(e, "range")) {
      for (auto& v : expand_range(*inner, where)) values.push_back(std::move(v));
    } else if (auto inner = call_arguments(e, "choice")) {
      for (const auto& c : split_top_level(*inner, where)) values.push_back(parse_element(c, where));
    } else {
      values.push_back(parse_element(part, where));
    }
    if (values.size() > kMaxValues)
      refuse(where, fmt::format("more than {} values in one axis", kMaxValues));
  }
  return values;
}

Override parse_override(const std::string& argument) {
  const std::string where = "sweep override '" + argument + "'";
  const auto eq = argument.find('=');
  const std::string head = trim(argument.substr(0, eq));
  if (!head.empty() && (head[0] == '+' || head[0] == '~'))
    refuse(where, fmt::format("'{}key' adds or deletes a config key in Hydra; an attnlab spec declares its keys "
                              "(see `attnlab list KIND`), so write {}=VALUES",
                              head[0], head.substr(1)));
  if (eq == std::string::npos)
    refuse(where, "expected KEY=VALUES, e.g. seed=0,1,2 or seed=range(0,5) or lr=1e-3,3e-3");
  const std::string& key = head;
  bool word = !key.empty() && (std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_');
  for (char c : key) word = word && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!word) refuse(where, "\"" + key + "\" is not a spec key (letters, digits and _)");
  return {key, parse_values(argument.substr(eq + 1), where)};
}

std::vector<json> values_from_spec(const json& entry, const std::string& file, const std::string& key) {
  const std::string where = file + ": at /sweep/" + key;
  if (entry.is_string()) return parse_values(entry.get<std::string>(), where);
  if (!entry.is_array() || entry.empty())
    refuse(where, "expected a non-empty list of values, e.g. [0, 1, 2], or a string such as \"range(0,5)\"");
  if (entry.size() > kMaxValues) refuse(where, fmt::format("more than {} values in one axis", kMaxValues));
  return {entry.begin(), entry.end()};
}

std::string show(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

}  // namespace attnlab::sweep
