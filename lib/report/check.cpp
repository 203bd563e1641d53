#include "report/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

namespace attnlab::report {

namespace {

struct Token {
  std::string text;
  std::size_t begin, end;  // character span in its line
};

std::vector<Token> tokens_of(const std::string& line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t b = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > b) out.push_back({line.substr(b, i - b), b, i});
  }
  return out;
}

bool is_number(const std::string& t) {
  static const std::regex number(R"([-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?,?)");
  return std::regex_match(t, number);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct Table {
  std::string name;                     // "KIND: FILE" as the heading says, or "output"
  std::string kind;                     // KIND ("" without a heading)
  std::vector<std::string> components;  // FILE's path, lexically normalised, one entry per component
  std::vector<std::string> lines;
};

Table table_named(const std::string& name) {
  Table t{name, "", {}, {}};
  const auto colon = name.find(": ");
  if (colon == std::string::npos) return t;
  t.kind = name.substr(0, colon);
  for (const auto& part : std::filesystem::path(name.substr(colon + 2)).lexically_normal())
    t.components.push_back(part.string());
  return t;
}

std::vector<Table> tables_of(const std::string& text) {
  static const std::regex heading(R"(== (.+) ==)");
  std::vector<Table> tables;
  for (const auto& line : lines_of(text)) {
    std::smatch m;
    if (std::regex_match(line, m, heading)) {
      tables.push_back(table_named(m[1]));
      continue;
    }
    if (tables.empty()) tables.push_back(table_named("output"));
    tables.back().lines.push_back(line);
  }
  // The blank line that separates tables belongs to neither.
  for (auto& t : tables)
    while (!t.lines.empty() && t.lines.back().empty()) t.lines.pop_back();
  return tables;
}

bool is_header(const std::string& line) {
  const auto toks = tokens_of(line);
  return !toks.empty() && std::none_of(toks.begin(), toks.end(), [](const Token& t) { return is_number(t.text); });
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// A token that is one of a row's values rather than part of its label: a
// decimal ("0.9995", "+0.84", "1e-5"), an integer of four or more digits
// ("13666"), a wall time ("14s"), or a bracketed value ("[2.0,"). Short
// integers stay in the label: "attention, 1 block", "pos 3", "head 0".
bool is_value(const std::string& t) {
  if (is_measured(t)) return true;
  if (!t.empty() && (t[0] == '[' || t[0] == '(')) return true;
  if (!is_number(t)) return false;
  const bool integer = t.find_first_of(".eE") == std::string::npos;
  std::size_t digits = 0;
  for (char c : t) digits += std::isdigit(static_cast<unsigned char>(c)) != 0;
  return !integer || t[0] == '+' || t[0] == '-' || digits >= 4;
}

// How many leading tokens label the row: every token before its first value.
std::size_t label_size(const std::vector<Token>& toks) {
  std::size_t n = 0;
  while (n < toks.size() && !is_value(toks[n].text)) ++n;
  return n;
}

// The course's columns are right-aligned printf fields, and a header may
// overflow its field ("max weight scaled"), so a column's name is the header
// text between the end of the previous value and the end of this one.
std::string column_name(const std::vector<std::string>& lines, std::size_t row, const std::vector<Token>& values,
                        std::size_t index) {
  for (std::size_t k = row; k-- > 0;) {
    if (lines[k].empty()) break;
    if (!is_header(lines[k])) continue;
    const std::string& header = lines[k];
    const std::size_t from = index == 0 ? 0 : values[index - 1].end;
    const std::size_t to = index + 1 == values.size() ? header.size() : values[index].end;
    // A slice that cuts a word is not a column of this header (a sentence
    // above a table of numbers, as in attention_map).
    auto cuts_word = [&](std::size_t at) {
      return at > 0 && at < header.size() && header[at - 1] != ' ' && header[at] != ' ';
    };
    const std::string name = from < header.size() && to > from && !cuts_word(from) && !cuts_word(to)
                                 ? trim(header.substr(from, to - from))
                                 : "";
    if (!name.empty()) return name;
    break;
  }
  const std::size_t label = label_size(values);
  if (index < label) return "(row label)";
  return fmt::format("value {}", index - label + 1);
}

// The row's full label, its leading words as printed ("attention, 1 block",
// "head 0, what position 0 looks at", "0 5"); a row of values alone is named
// by its first ("64" in the sqrt_d table, "8192" in the cost table).
std::string row_label(const std::vector<Token>& toks) {
  std::size_t n = label_size(toks);
  while (n > 0 && (toks[n - 1].text == "->" || toks[n - 1].text == "=")) --n;
  std::string label;
  for (std::size_t k = 0; k < n; ++k) label += (k ? " " : "") + toks[k].text;
  if (label.empty() && !toks.empty()) label = toks.front().text;
  while (!label.empty() && (label.back() == ',' || label.back() == ':')) label.pop_back();
  return label;
}

void compare_table(const Table& want, const Table& got, std::vector<Difference>& diffs) {
  const std::size_t n = std::max(want.lines.size(), got.lines.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string e = i < want.lines.size() ? want.lines[i] : "(no line)";
    const std::string a = i < got.lines.size() ? got.lines[i] : "(no line)";
    if (e == a) continue;
    const auto et = tokens_of(e), at = tokens_of(a);
    const int line = static_cast<int>(i + 1);
    if (et.size() != at.size() || i >= want.lines.size() || i >= got.lines.size()) {
      diffs.push_back({want.name, row_label(et.empty() ? at : et), "(whole line)", e, a, line});
      continue;
    }
    bool same_but_measured = true;
    for (std::size_t k = 0; k < et.size(); ++k) {
      if (et[k].text == at[k].text) continue;
      if (is_measured(et[k].text) && is_measured(at[k].text)) continue;
      same_but_measured = false;
      diffs.push_back({want.name, row_label(et), column_name(want.lines, i, et, k), et[k].text, at[k].text, line});
    }
    // Only spacing differs: report the line itself.
    if (same_but_measured && !std::equal(et.begin(), et.end(), at.begin(), [](const Token& x, const Token& y) {
          return x.begin == y.begin || (is_measured(x.text) && is_measured(y.text));
        }))
      diffs.push_back({want.name, row_label(et), "(spacing)", e, a, line});
  }
}

}  // namespace

bool is_measured(const std::string& token) {
  static const std::regex measured(R"([0-9]+(\.[0-9]+)?(s|ms))");
  return std::regex_match(token, measured);
}

namespace {

// Whether the shorter path is the tail of the longer, component by component:
// "experiments/sqrt_d.json" names the same spec as
// "/home/me/attnlab/experiments/sqrt_d.json" or "../experiments/sqrt_d.json".
bool same_spec_seen_elsewhere(const Table& a, const Table& b) {
  if (a.kind != b.kind || a.components.empty() || b.components.empty()) return false;
  const auto& shorter = a.components.size() <= b.components.size() ? a.components : b.components;
  const auto& longer = a.components.size() <= b.components.size() ? b.components : a.components;
  return std::equal(shorter.rbegin(), shorter.rend(), longer.rbegin());
}

bool exactly_same(const Table& a, const Table& b) { return a.kind == b.kind && a.components == b.components; }

std::string list_names(const std::vector<const Table*>& ts) {
  std::string s;
  for (std::size_t i = 0; i < ts.size(); ++i) s += (i ? (i + 1 == ts.size() ? " and " : ", ") : "") + ts[i]->name;
  return s;
}

}  // namespace

std::vector<Difference> compare_tables(const std::string& expected, const std::string& actual) {
  std::vector<Difference> diffs;
  const auto want = tables_of(expected), got = tables_of(actual);

  // The output of a single spec has no heading: compare it with the run's
  // one table, whatever that table's heading says.
  if (want.size() == 1 && want[0].kind.empty()) {
    if (got.size() == 1) {
      Table g = got[0];
      g.name = want[0].name;
      compare_table(want[0], g, diffs);
    } else {
      diffs.push_back({want[0].name, "(whole table)", "",
                       "one table without a \"== KIND: FILE ==\" heading (the output of one spec)",
                       std::to_string(got.size()) + " tables", 0});
    }
    return diffs;
  }

  // Each expected table is matched with one printed table: first by the very
  // same path (and, for a spec run twice, in order), then by a path that
  // ends the same way when that match is unique both ways. Two specs of the
  // same name in different folders are never confused: each is compared
  // with its own table, or reported as missing.
  std::vector<int> match(want.size(), -1);
  std::vector<bool> used(got.size(), false);
  for (std::size_t w = 0; w < want.size(); ++w)
    for (std::size_t g = 0; g < got.size(); ++g)
      if (!used[g] && exactly_same(want[w], got[g])) {
        match[w] = static_cast<int>(g);
        used[g] = true;
        break;
      }
  std::vector<std::vector<const Table*>> ambiguous(want.size());
  for (std::size_t w = 0; w < want.size(); ++w) {
    if (match[w] >= 0) continue;
    std::vector<std::size_t> candidates;
    for (std::size_t g = 0; g < got.size(); ++g)
      if (!used[g] && same_spec_seen_elsewhere(want[w], got[g])) candidates.push_back(g);
    if (candidates.size() == 1) {
      std::size_t rivals = 0;
      for (std::size_t v = 0; v < want.size(); ++v)
        if (match[v] < 0 && same_spec_seen_elsewhere(want[v], got[candidates[0]])) ++rivals;
      if (rivals == 1) {
        match[w] = static_cast<int>(candidates[0]);
        used[candidates[0]] = true;
        continue;
      }
    }
    for (std::size_t g : candidates) ambiguous[w].push_back(&got[g]);
  }

  for (std::size_t w = 0; w < want.size(); ++w) {
    if (match[w] >= 0) {
      compare_table(want[w], got[match[w]], diffs);
    } else if (!ambiguous[w].empty()) {
      diffs.push_back({want[w].name, "(whole table)", "", "the table",
                       "no table of that path; " + list_names(ambiguous[w]) +
                           " could each be it, so neither is compared",
                       0});
    } else {
      diffs.push_back({want[w].name, "(whole table)", "", "the table", "nothing: the run did not print it", 0});
    }
  }
  for (std::size_t g = 0; g < got.size(); ++g)
    if (!used[g])
      diffs.push_back({got[g].name, "(whole table)", "", "nothing", "a table the expected output does not have", 0});
  return diffs;
}

std::string expected_text_problem(const std::string& text) {
  if (text.empty()) return "it is empty";
  if (text.find('\0') != std::string::npos) return "it holds a NUL byte, so it is not a text file of tables";
  if (text.find("\r\n") != std::string::npos)
    return "it has Windows line endings (CRLF), and attnlab prints LF; convert it with "
           "`sed -i 's/\\r$//' FILE` (or dos2unix) and check again";
  return "";
}

std::string describe(const std::vector<Difference>& diffs, const std::string& expected_file) {
  std::string out = fmt::format("check against {}: {} difference{}\n", expected_file, diffs.size(),
                                diffs.size() == 1 ? "" : "s");
  for (const auto& d : diffs) {
    if (d.line == 0) {
      out += fmt::format("  table {}: expected {}, got {}\n", d.table, d.expected, d.actual);
      continue;
    }
    if (d.column == "(whole line)" || d.column == "(spacing)") {
      out += fmt::format("  table {}, line {}, row \"{}\" {}:\n    - {}\n    + {}\n", d.table, d.line, d.row,
                         d.column == "(spacing)" ? "differs in spacing" : "differs", d.expected, d.actual);
      continue;
    }
    out += fmt::format("  table {}, line {}, row \"{}\", column \"{}\": expected {}, got {}\n", d.table, d.line,
                       d.row, d.column, d.expected, d.actual);
  }
  return out;
}

}  // namespace attnlab::report
