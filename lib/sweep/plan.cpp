#include "sweep/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "experiments/registry.hpp"
#include "spec/spec_error.hpp"
#include "spec/validate.hpp"
#include "sweep/config_hash.hpp"
#include "sweep/override_grammar.hpp"

namespace attnlab::sweep {

using nlohmann::json;

namespace {

// More refusals than this are counted, not listed.
constexpr std::size_t kListedRefusals = 10;

const experiments::Experiment& kind_of(const json& doc, const std::string& file) {
  if (doc.contains("experiment") && doc.at("experiment").is_string())
    if (const auto* e = experiments::find_experiment(doc.at("experiment").get<std::string>())) return *e;
  experiments::check_spec(doc, file);  // throws the usual error about "experiment"
  throw spec::SpecError(file, "/experiment", "unknown experiment kind");
}

void check_key(const experiments::Experiment& e, const std::string& key, const std::string& where) {
  std::vector<std::string> names;
  for (const auto& p : e.params) names.push_back(p.name);
  if (std::find(names.begin(), names.end(), key) != names.end()) return;
  const std::string near = spec::closest(key, names);
  throw spec::SpecError(where, "",
                        fmt::format("unknown key \"{}\" for experiment \"{}\"{}; run `attnlab list {}` for its "
                                    "parameters",
                                    key, e.name, near.empty() ? "" : " (did you mean \"" + near + "\"?)", e.name));
}

}  // namespace

bool is_seed_key(const std::string& key) { return key == "seed" || key == "data_seed"; }

std::vector<std::string> group_keys(const Plan& plan) {
  std::vector<std::string> keys;
  for (const auto& a : plan.axes)
    if (a.swept() && !is_seed_key(a.key)) keys.push_back(a.key);
  return keys;
}

std::string describe_run(const Plan& plan, const PlannedRun& run) {
  const std::string params = describe(plan, run);
  return params.empty() ? fmt::format("run {}", run.index) : fmt::format("run {} ({})", run.index, params);
}

std::string describe(const Plan& plan, const PlannedRun& run, bool all) {
  std::string out;
  for (std::size_t i = 0; i < run.params.size(); ++i) {
    if (!all && !plan.axes[i].swept()) continue;
    out += (out.empty() ? "" : ", ") + run.params[i].first + "=" + show(run.params[i].second);
  }
  return out;
}

Plan make_plan_from(json doc, const std::string& spec_file, const std::vector<std::string>& overrides) {
  Plan plan;
  plan.spec_file = spec_file;
  const auto& kind = kind_of(doc, spec_file);
  plan.kind = kind.name;

  if (doc.contains("sweep")) {
    const json& block = doc.at("sweep");
    if (!block.is_object())
      throw spec::SpecError(spec_file, "/sweep",
                            "expected an object of KEY: [VALUES...], e.g. {\"seed\": [0, 1, 2]}; got " +
                                spec::show_value(block));
    for (const auto& [key, entry] : block.items()) {
      check_key(kind, key, spec_file + ": at /sweep/" + key);
      plan.axes.push_back({key, values_from_spec(entry, spec_file, key)});
    }
    doc.erase("sweep");
  }
  std::vector<std::string> from_command_line;
  for (const auto& arg : overrides) {
    Override o = parse_override(arg);
    check_key(kind, o.key, "sweep override '" + arg + "'");
    if (std::find(from_command_line.begin(), from_command_line.end(), o.key) != from_command_line.end())
      throw spec::SpecError("sweep override '" + arg + "'", "",
                            "\"" + o.key + "\" is given twice; give all its values in one KEY=A,B,C");
    from_command_line.push_back(o.key);
    auto same = std::find_if(plan.axes.begin(), plan.axes.end(), [&](const Axis& a) { return a.key == o.key; });
    if (same != plan.axes.end())
      same->values = std::move(o.values);  // the command line wins over the spec's sweep block
    else
      plan.axes.push_back({o.key, std::move(o.values)});
  }

  long double total = 1;
  for (const auto& a : plan.axes) total *= static_cast<long double>(a.values.size());
  if (total > static_cast<long double>(kMaxRuns)) {
    std::string sizes;
    for (const auto& a : plan.axes) sizes += fmt::format("{}{} {}", sizes.empty() ? "" : " x ", a.values.size(), a.key);
    throw spec::SpecError(spec_file, "",
                          fmt::format("the sweep has {:.0Lf} runs ({}); at most {} are allowed", total, sizes, kMaxRuns));
  }

  // The Cartesian product, the last axis fastest (as Hydra's basic sweeper
  // and itertools.product order it); every combination checked up front.
  const std::size_t n = static_cast<std::size_t>(total);
  std::vector<std::string> refusals;
  std::size_t refused = 0;
  std::map<std::string, std::size_t> by_hash;
  for (std::size_t index = 0; index < n; ++index) {
    PlannedRun run;
    run.index = index;
    json set = json::object();
    std::size_t rest = index;
    run.params.resize(plan.axes.size());
    for (std::size_t k = plan.axes.size(); k-- > 0;) {
      const auto& a = plan.axes[k];
      run.params[k] = {a.key, a.values[rest % a.values.size()]};
      rest /= a.values.size();
      set[a.key] = run.params[k].second;
    }
    try {
      // No relabelling of a refused value: the run's description names it.
      const auto loaded = experiments::check_spec(doc, spec_file, set, "");
      run.spec = canonical_spec(loaded);
    } catch (const spec::SpecError& e) {
      if (refused++ < kListedRefusals)
        refusals.push_back(fmt::format("  run {} ({}): {}", index, describe(plan, run, true), e.what()));
      continue;
    }
    run.hash = config_hash(run.spec);
    if (auto [it, fresh] = by_hash.emplace(run.hash, plan.runs.size()); !fresh) {
      const auto& first = plan.runs[it->second];
      throw spec::SpecError(spec_file, "",
                            fmt::format("runs {} ({}) and {} ({}) compute the same spec; give each value once",
                                        first.index, describe(plan, first, true), index, describe(plan, run, true)));
    }
    plan.runs.push_back(std::move(run));
  }
  if (refused) {
    std::string lines;
    for (const auto& r : refusals) lines += "\n" + r;
    if (refused > refusals.size()) lines += fmt::format("\n  ... and {} more", refused - refusals.size());
    throw spec::SpecError(spec_file, "",
                          fmt::format("{} of the sweep's {} runs would be refused, so none is started:{}", refused, n,
                                      lines));
  }
  return plan;
}

Plan make_plan(const std::string& spec_file, const std::vector<std::string>& overrides) {
  return make_plan_from(spec::read_spec_file(spec_file), spec_file, overrides);
}

}  // namespace attnlab::sweep
