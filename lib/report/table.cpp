#include "report/table.hpp"

#include <limits>
#include <stdexcept>

namespace attnlab::report {

using nlohmann::json;

void Table::add_row(std::string label, std::vector<double> figures) {
  if (figures.size() != columns.size())
    throw std::invalid_argument("table row \"" + label + "\" has " + std::to_string(figures.size()) +
                                " figures for " + std::to_string(columns.size()) + " columns");
  labels.push_back(std::move(label));
  values.push_back(std::move(figures));
}

json to_json(const Table& t) {
  json columns = json::array(), rows = json::array();
  for (const auto& c : t.columns)
    columns.push_back({{"header", c.header}, {"key", c.key}, {"format", c.format}, {"timing", c.timing}});
  for (std::size_t i = 0; i < t.labels.size(); ++i) rows.push_back({{"label", t.labels[i]}, {"values", t.values[i]}});
  return {{"label", t.label_header}, {"label_left", t.label_left}, {"columns", columns}, {"rows", rows}};
}

Table table_from_json(const json& j) {
  auto need = [](const json& o, const char* key, bool (json::*is)() const noexcept, const char* what) -> const json& {
    if (!o.is_object() || !o.contains(key) || !(o.at(key).*is)())
      throw std::invalid_argument(std::string("table: \"") + key + "\" missing or not " + what);
    return o.at(key);
  };
  Table t;
  t.label_header = need(j, "label", &json::is_string, "a string").get<std::string>();
  t.label_left = need(j, "label_left", &json::is_boolean, "a boolean").get<bool>();
  for (const auto& c : need(j, "columns", &json::is_array, "a list"))
    t.columns.push_back({need(c, "header", &json::is_string, "a string").get<std::string>(),
                         need(c, "key", &json::is_string, "a string").get<std::string>(),
                         need(c, "format", &json::is_string, "a string").get<std::string>(),
                         need(c, "timing", &json::is_boolean, "a boolean").get<bool>()});
  for (const auto& r : need(j, "rows", &json::is_array, "a list")) {
    std::vector<double> values;
    for (const auto& v : need(r, "values", &json::is_array, "a list")) {
      // JSON has no NaN: nlohmann writes it as null.
      if (v.is_null()) values.push_back(std::numeric_limits<double>::quiet_NaN());
      else if (v.is_number()) values.push_back(v.get<double>());
      else throw std::invalid_argument("table: a value is not a number");
    }
    t.add_row(need(r, "label", &json::is_string, "a string").get<std::string>(), std::move(values));
  }
  return t;
}

}  // namespace attnlab::report
