#include "spec/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <cmath>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attnlab::spec {

using nlohmann::json;

namespace {

// (line, column) of a 1-based byte offset that points just past the problem.
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  const std::size_t stop = std::min<std::size_t>(byte ? byte - 1 : 0, text.size());
  for (std::size_t i = 0; i < stop; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// nlohmann's messages start "[json.exception.parse_error.101] parse error at ...: ".
std::string explanation(const std::string& what) {
  const auto pos = what.find(": ");
  return pos == std::string::npos ? what : what.substr(pos + 2);
}

// What a scan of the raw text finds before nlohmann parses it: the byte of
// the first NUL, of the first bracket nested beyond kMaxDepth, and of a given
// number token, each outside strings (npos when absent).
struct Scan {
  std::size_t nul = std::string::npos, too_deep = std::string::npos, number = std::string::npos;
};

Scan scan(const std::string& text, const std::string& number_token = "") {
  Scan r;
  bool in_string = false, escaped = false;
  int depth = 0;
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+'; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0' && r.nul == std::string::npos) r.nul = i;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') {
      if (++depth > kMaxDepth && r.too_deep == std::string::npos) r.too_deep = i;
    }
    if (c == ']' || c == '}') --depth;
    if (!number_token.empty() && r.number == std::string::npos && (i == 0 || !is_word(text[i - 1])) &&
        text.compare(i, number_token.size(), number_token) == 0 &&
        (i + number_token.size() == text.size() || !is_word(text[i + number_token.size()])))
      r.number = i;
  }
  return r;
}

// nlohmann reports a number beyond double's range as "number overflow
// parsing '1e309'"; the token between the quotes.
std::string overflowing_token(const std::string& what) {
  const auto b = what.find('\''), e = what.rfind('\'');
  return b == std::string::npos || e <= b ? "" : what.substr(b + 1, e - b - 1);
}

std::string out_of_range(const std::string& token) {
  return fmt::format("{} is out of range: a number must be finite in double precision (magnitude below 1.8e308)",
                     token.empty() ? "a number" : token);
}

}  // namespace

nlohmann::json parse_override_value(const std::string& key, const std::string& text) {
  const std::string source = "--set " + key;
  const Scan sc = scan(text);
  if (sc.too_deep != std::string::npos)
    throw SpecError(source, "", fmt::format("the value nests deeper than {} levels of brackets", kMaxDepth));
  try {
    return json::parse(text);
  } catch (const json::parse_error&) {
    return json(text);  // not JSON: the plain string
  } catch (const json::exception& e) {
    throw SpecError(source, "", out_of_range(overflowing_token(e.what())));
  }
}

nlohmann::json parse_spec_text(const std::string& text, const std::string& file) {
  json doc;
  // nlohmann keeps the last of two equal keys; a spec that says a thing twice
  // is ambiguous, so the parser callback refuses it.
  std::vector<std::vector<std::string>> keys_per_object;
  std::string duplicate;
  auto watch_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys_per_object.emplace_back();
    if (event == json::parse_event_t::object_end && !keys_per_object.empty()) keys_per_object.pop_back();
    if (event == json::parse_event_t::key && !keys_per_object.empty()) {
      auto& seen = keys_per_object.back();
      const std::string key = parsed.get<std::string>();
      if (std::find(seen.begin(), seen.end(), key) != seen.end() && duplicate.empty()) duplicate = key;
      seen.push_back(key);
    }
    return true;
  };
  const Scan sc = scan(text);
  if (sc.nul != std::string::npos) {
    const auto [line, column] = line_column(text, sc.nul + 1);
    throw SpecError(file, "", fmt::format("a NUL byte at line {}, column {}: a spec is JSON text", line, column));
  }
  if (sc.too_deep != std::string::npos) {
    const auto [line, column] = line_column(text, sc.too_deep + 1);
    throw SpecError(file, "", fmt::format("nested deeper than {} levels of brackets (line {}, column {})",
                                          kMaxDepth, line, column));
  }
  try {
    doc = json::parse(text, watch_keys);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_column(text, e.byte);
    throw SpecError(file, "", fmt::format("not valid JSON (line {}, column {}): {}", line, column,
                                          explanation(e.what())));
  } catch (const json::exception& e) {  // e.g. 1e309: a number beyond double's range
    const std::string token = overflowing_token(e.what());
    const std::size_t at = scan(text, token).number;
    if (at == std::string::npos) throw SpecError(file, "", out_of_range(token));
    const auto [line, column] = line_column(text, at + 1);
    throw SpecError(file, "", fmt::format("{} (line {}, column {})", out_of_range(token), line, column));
  }
  if (!duplicate.empty())
    throw SpecError(file, "/" + duplicate,
                    fmt::format("the key \"{}\" is given twice; give each key once", duplicate));
  if (!doc.is_object())
    throw SpecError(file, "", fmt::format("a spec must be a JSON object like {{\"experiment\": \"sqrt_d\"}}, not {}",
                                          doc.type_name()));
  return doc;
}

nlohmann::json read_spec_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw SpecError(path, "", "cannot open the file: " + (ec ? ec.message() : std::string("No such file or directory")));
  if (!std::filesystem::is_regular_file(status))
    throw SpecError(path, "", "not a regular file (a spec is a JSON file, e.g. experiments/sqrt_d.json)");
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxSpecBytes)
    throw SpecError(path, "", fmt::format("{} bytes is too large for a spec (at most {})", size, kMaxSpecBytes));
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path, "", "cannot open the file: " + std::string(std::strerror(errno ? errno : EACCES)));
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_spec_text(buf.str(), path);
}

std::string show_value(const nlohmann::json& v) {
  if (v.is_array()) {
    const bool flat = std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_primitive(); });
    // An error message must never throw: bytes that are not UTF-8 show as U+FFFD.
    if (flat && v.size() <= 8) return v.dump(-1, ' ', false, json::error_handler_t::replace);
    return fmt::format("a list of {} item{}{}", v.size(), v.size() == 1 ? "" : "s", flat ? "" : " (nested)");
  }
  if (v.is_object()) return fmt::format("an object with {} key{}", v.size(), v.size() == 1 ? "" : "s");
  const std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() <= 60 ? text : text.substr(0, 57) + "...";
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
  auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  for (const auto& c : candidates) {
    const std::size_t d = distance(lower(word), lower(c));
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
                  fmt::format("{} is not allowed for \"{}\" ({}); expected {}", show_value(value), p.name, p.doc,
                              describe_allowed(p)));
}

bool in_range(double v, const Param& p) {
  return (!p.min || v > *p.min || (v == *p.min && !p.min_exclusive)) && (!p.max || v <= *p.max);
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
                        fmt::format("{} is not allowed for \"{}\"; expected {}{}", show_value(v), p.name,
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
                      fmt::format("{} is not allowed in \"{}\" ({}); expected {}", show_value(v[i]), p.name, p.doc,
                                  describe_allowed(p)));
    }
  }
}

// Other spellings of one quantity that attnlab spells one way (PyTorch's
// nn.Transformer names): a spec or --set written with "width" or "heads" is
// refused, but pointed at the key this kind takes, which edit distance alone
// would not find. No alias is accepted silently.
std::optional<std::string> same_quantity(const std::string& key, const std::vector<std::string>& names) {
  static const std::pair<const char*, const char*> kSpellings[] = {
      {"width", "d_model"},  {"embed_dim", "d_model"}, {"hidden", "d_model"}, {"dim", "d_model"},
      {"heads", "n_heads"},  {"num_heads", "n_heads"}, {"nhead", "n_heads"}, {"n_head", "n_heads"},
      {"d_model", "embed_dim"}, {"n_heads", "num_heads"}};
  for (const auto& [other, ours] : kSpellings)
    if (key == other && std::find(names.begin(), names.end(), ours) != names.end()) return ours;
  return std::nullopt;
}

}  // namespace

nlohmann::json fill_and_check(const nlohmann::json& doc, const std::string& kind,
                              const std::vector<Param>& params, const std::string& file) {
  std::vector<std::string> names{"experiment"};
  for (const auto& p : params) names.push_back(p.name);
  for (const auto& [key, value] : doc.items()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    const std::string near = same_quantity(key, names).value_or(closest(key, names));
    std::string valid = "experiment";
    for (std::size_t i = 1; i < names.size(); ++i) valid += ", " + names[i];
    if (names.size() == 1) valid += " (this kind takes no parameters)";
    throw SpecError(file, pointer(key),
                    fmt::format("unknown key \"{}\" for experiment \"{}\"{}; valid keys: {}", key, kind,
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
