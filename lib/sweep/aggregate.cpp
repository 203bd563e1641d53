#include "sweep/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace attnlab::sweep {

using nlohmann::json;

Summary summarise(const std::vector<double>& values) {
  Summary s;
  s.n = values.size();
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) {
    s.std = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(s.n - 1));
  return s;
}

report::Table table_of(const json& result) {
  if (result.contains("table")) return report::table_from_json(result.at("table"));
  report::Table t;
  std::vector<double> row;
  if (result.contains("data") && result.at("data").is_object())
    for (const auto& [key, v] : result.at("data").items()) {
      if (!v.is_number()) continue;  // lists, shapes, booleans and strings are not figures to average
      const bool timing = key == "seconds" || (key.size() > 8 && key.compare(key.size() - 8, 8, "_seconds") == 0);
      t.columns.push_back({key, key, "%.6g", timing});
      row.push_back(v.get<double>());
    }
  if (!t.columns.empty()) t.add_row("", row);
  return t;
}

namespace {

void add_columns(const report::Table& from, bool with_times, report::Table& layout) {
  for (const auto& c : from.columns) {
    if (c.timing && !with_times) continue;
    bool known = false;
    for (const auto& have : layout.columns) known = known || have.key == c.key;
    if (!known) layout.columns.push_back(c);
  }
}

}  // namespace

std::vector<Group> aggregate(const Plan& plan, const std::vector<RunState>& states, bool with_times) {
  if (states.size() != plan.runs.size()) throw std::invalid_argument("aggregate: one state per planned run");
  std::vector<std::size_t> keyed;  // axis positions that split the runs into tables
  for (std::size_t a = 0; a < plan.axes.size(); ++a)
    if (plan.axes[a].swept() && !is_seed_key(plan.axes[a].key)) keyed.push_back(a);

  std::vector<Group> groups;
  std::vector<std::vector<report::Table>> tables;  // per group, per run: the run's table (ok runs)
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const auto& run = plan.runs[i];
    std::vector<std::pair<std::string, json>> params;
    for (std::size_t a : keyed) params.push_back(run.params[a]);
    std::size_t g = 0;
    while (g < groups.size() && groups[g].params != params) ++g;
    if (g == groups.size()) {
      groups.push_back({params, {}, 0, 0, 0, {}, {}});
      tables.emplace_back();
    }
    Group& group = groups[g];
    group.runs.push_back(i);
    const Status s = states[i].status;
    if (s == Status::done) {
      ++group.ok;
      report::Table t;
      try {
        t = table_of(states[i].result);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error("run " + run.hash + ": result.json: " + e.what());
      }
      if (group.ok == 1) {
        group.layout.label_header = t.label_header;
        group.layout.label_left = t.label_left;
      }
      add_columns(t, with_times, group.layout);
      tables[g].push_back(std::move(t));
    } else if (is_failure(s)) {
      ++group.failed;
    } else {
      ++group.pending;
    }
  }

  for (std::size_t g = 0; g < groups.size(); ++g) {
    Group& group = groups[g];
    std::vector<std::string> labels;  // in the order of first appearance
    for (const auto& t : tables[g])
      for (const auto& l : t.labels)
        if (std::find(labels.begin(), labels.end(), l) == labels.end()) labels.push_back(l);
    for (const auto& label : labels) {
      AggregatedRow row{label, {}, 0};
      std::vector<std::vector<double>> samples(group.layout.columns.size());
      for (const auto& t : tables[g]) {
        const auto at = std::find(t.labels.begin(), t.labels.end(), label);
        if (at == t.labels.end()) continue;
        ++row.n;
        const auto& values = t.values[static_cast<std::size_t>(at - t.labels.begin())];
        for (std::size_t c = 0; c < group.layout.columns.size(); ++c)
          for (std::size_t k = 0; k < t.columns.size(); ++k)
            if (t.columns[k].key == group.layout.columns[c].key) samples[c].push_back(values[k]);
      }
      for (const auto& s : samples) row.cells.push_back(summarise(s));
      group.rows.push_back(std::move(row));
    }
  }
  return groups;
}

}  // namespace attnlab::sweep
