#include "report/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
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
  std::string name;
  std::vector<std::string> lines;
};

std::vector<Table> tables_of(const std::string& text) {
  static const std::regex heading(R"(== (.+) ==)");
  std::vector<Table> tables;
  for (const auto& line : lines_of(text)) {
    std::smatch m;
    if (std::regex_match(line, m, heading)) {
      tables.push_back({m[1], {}});
      continue;
    }
    if (tables.empty()) tables.push_back({"output", {}});
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
  return fmt::format("value {}", index + 1);
}

// The leading words of a row ("with positions", "plain RNN"); a lone word
// keeps the index after it ("head 2", "pos 3"); a row of numbers is named by
// its first ("64" in the bottleneck table).
std::string row_label(const std::vector<Token>& toks) {
  std::string label;
  std::size_t words = 0;
  for (; words < toks.size() && !is_number(toks[words].text); ++words)
    label += (label.empty() ? "" : " ") + toks[words].text;
  if (words == 1 && toks.size() > 1 && toks[1].text.find('.') == std::string::npos && toks[1].text.size() <= 3)
    label += " " + toks[1].text;
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

// Tables are matched by kind and file name, not by the path the spec was
// given as, so a check passes from any working directory.
std::string table_key(const std::string& name) {
  const auto colon = name.find(": ");
  if (colon == std::string::npos) return name;
  const auto slash = name.find_last_of('/');
  return name.substr(0, colon) + ":" + (slash == std::string::npos || slash < colon ? name.substr(colon + 2)
                                                                                    : name.substr(slash + 1));
}

std::vector<Difference> compare_tables(const std::string& expected, const std::string& actual) {
  std::vector<Difference> diffs;
  const auto want = tables_of(expected), got = tables_of(actual);
  std::map<std::string, const Table*> got_by_name;
  for (const auto& t : got) got_by_name[table_key(t.name)] = &t;
  for (const auto& w : want) {
    auto it = got_by_name.find(table_key(w.name));
    if (it == got_by_name.end()) {
      diffs.push_back({w.name, "(whole table)", "", "the table", "nothing: the run did not print it", 0});
      continue;
    }
    compare_table(w, *it->second, diffs);
    got_by_name.erase(it);
  }
  for (const auto& t : got)
    if (got_by_name.count(table_key(t.name)))
      diffs.push_back({t.name, "(whole table)", "", "nothing", "a table the expected output does not have", 0});
  return diffs;
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
