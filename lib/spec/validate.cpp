#include "spec/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace attnlab::spec {

using nlohmann::json;

nlohmann::json parse_spec_text(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    std::size_t line = 1, column = 1;
    const std::size_t stop = std::min<std::size_t>(e.byte ? e.byte - 1 : 0, text.size());
    for (std::size_t i = 0; i < stop; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    // Keep nlohmann's explanation, drop its "[json.exception...] parse error at ...:" prefix.
    if (auto pos = what.find(": "); pos != std::string::npos) what = what.substr(pos + 2);
    throw SpecError(file, "", fmt::format("not valid JSON (line {}, column {}): {}", line, column, what));
  }
  if (!doc.is_object())
    throw SpecError(file, "", fmt::format("a spec must be a JSON object like {{\"experiment\": \"sqrt_d\"}}, not {}",
                                          doc.type_name()));
  return doc;
}

nlohmann::json read_spec_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path, "", "cannot open the file (does it exist?)");
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_spec_text(buf.str(), path);
}

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  std::size_t best_d = word.size() / 3 + 2;
  for (const auto& c : candidates) {
    const std::size_t d = distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

namespace {

std::string pointer(const std::string& key, long index = -1) {
  return index < 0 ? "/" + key : fmt::format("/{}/{}", key, index);
}

[[noreturn]] void refuse(const std::string& file, const std::string& path, const json& value,
                         const Param& p) {
  throw SpecError(file, path,
                  fmt::format("{} is not allowed for \"{}\" ({}); expected {}", value.dump(), p.name, p.doc,
                              describe_allowed(p)));
}

bool in_range(double v, const Param& p) {
  return (!p.min || v >= *p.min) && (!p.max || v <= *p.max);
}

void check_scalar(const json& v, Type t, const Param& p, const std::string& file, const std::string& path) {
  switch (t) {
    case Type::Integer:
      if (!v.is_number_integer() || !in_range(v.get<double>(), p)) refuse(file, path, v, p);
      return;
    case Type::Number:
      if (!v.is_number() || !std::isfinite(v.get<double>()) || !in_range(v.get<double>(), p))
        refuse(file, path, v, p);
      return;
    case Type::Boolean:
      if (!v.is_boolean()) refuse(file, path, v, p);
      return;
    case Type::String:
      if (!v.is_string()) refuse(file, path, v, p);
      if (!p.choices.empty() &&
          std::find(p.choices.begin(), p.choices.end(), v.get<std::string>()) == p.choices.end()) {
        const std::string near = closest(v.get<std::string>(), p.choices);
        throw SpecError(file, path,
                        fmt::format("{} is not allowed for \"{}\"; expected {}{}", v.dump(), p.name,
                                    describe_allowed(p), near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
      }
      return;
    default:
      return;
  }
}

Type item_type(Type t) {
  switch (t) {
    case Type::IntegerList: return Type::Integer;
    case Type::NumberList: return Type::Number;
    case Type::StringList: return Type::String;
    default: return t;
  }
}

void check_value(const json& v, const Param& p, const std::string& file) {
  const std::string path = pointer(p.name);
  if (item_type(p.type) == p.type) {
    check_scalar(v, p.type, p, file, path);
    return;
  }
  if (!v.is_array() || v.size() < p.min_items || v.size() > p.max_items) refuse(file, path, v, p);
  for (std::size_t i = 0; i < v.size(); ++i) {
    try {
      check_scalar(v[i], item_type(p.type), p, file, pointer(p.name, static_cast<long>(i)));
    } catch (const SpecError&) {
      // Report the item's path but describe the whole list's rule.
      throw SpecError(file, pointer(p.name, static_cast<long>(i)),
                      fmt::format("{} is not allowed in \"{}\" ({}); expected {}", v[i].dump(), p.name, p.doc,
                                  describe_allowed(p)));
    }
  }
}

}  // namespace

nlohmann::json fill_and_check(const nlohmann::json& doc, const std::string& kind,
                              const std::vector<Param>& params, const std::string& file) {
  std::vector<std::string> names{"experiment"};
  for (const auto& p : params) names.push_back(p.name);
  for (const auto& [key, value] : doc.items()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    const std::string near = closest(key, names);
    std::string valid;
    for (std::size_t i = 1; i < names.size(); ++i) valid += (i > 1 ? ", " : "") + names[i];
    throw SpecError(file, pointer(key),
                    fmt::format("unknown key \"{}\" for experiment \"{}\"{}; valid keys: experiment, {}", key, kind,
                                near.empty() ? "" : " (did you mean \"" + near + "\"?)", valid));
  }
  json filled = json::object();
  filled["experiment"] = kind;
  for (const auto& p : params) {
    const bool given = doc.contains(p.name);
    const json& v = given ? doc.at(p.name) : p.default_value;
    check_value(v, p, file);
    filled[p.name] = v;
  }
  return filled;
}

}  // namespace attnlab::spec
