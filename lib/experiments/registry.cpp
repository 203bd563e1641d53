#include "experiments/registry.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "experiments/kinds/kinds.hpp"
#include "spec/validate.hpp"

namespace attnlab::experiments {

const std::vector<Experiment>& all_experiments() {
  static const std::vector<Experiment> kinds = [] {
    std::vector<Experiment> v = all_kinds();
    std::stable_sort(v.begin(), v.end(),
                     [](const Experiment& a, const Experiment& b) { return a.course_order < b.course_order; });
    return v;
  }();
  return kinds;
}

const Experiment* find_experiment(const std::string& name) {
  for (const auto& e : all_experiments())
    if (e.name == name) return &e;
  return nullptr;
}

namespace {

// The checks of a document with its overrides applied.
LoadedSpec check_filled(nlohmann::json doc, const std::string& file) {
  std::vector<std::string> names;
  std::string known;
  for (const auto& e : all_experiments()) {
    names.push_back(e.name);
    known += (known.empty() ? "" : ", ") + e.name;
  }
  if (!doc.contains("experiment"))
    throw spec::SpecError(file, "/experiment", "missing the key \"experiment\"; known kinds: " + known);
  const auto& kind = doc.at("experiment");
  if (!kind.is_string())
    throw spec::SpecError(file, "/experiment",
                          fmt::format("{} is not a kind name; expected a string, one of: {}", spec::show_value(kind), known));
  const Experiment* e = find_experiment(kind.get<std::string>());
  if (!e) {
    const std::string near = spec::closest(kind.get<std::string>(), names);
    throw spec::SpecError(file, "/experiment",
                          fmt::format("unknown experiment \"{}\"{}; known kinds: {}", kind.get<std::string>(),
                                      near.empty() ? "" : " (did you mean \"" + near + "\"?)", known));
  }
  LoadedSpec loaded{file, e, spec::fill_and_check(doc, e->name, e->params, file)};
  if (e->check) e->check(loaded.spec, file);
  return loaded;
}

// "n_heads" for the JSON pointer "/n_heads/2".
std::string top_key(const std::string& pointer) {
  if (pointer.size() < 2) return "";
  return pointer.substr(1, pointer.find('/', 1) - 1);
}

}  // namespace

LoadedSpec check_spec(nlohmann::json doc, const std::string& file, const nlohmann::json& overrides,
                      const std::string& overrides_source) {
  // A "sweep" block belongs to `attnlab sweep` (lib/sweep/plan.hpp), which
  // checks it; everything else runs the spec it sweeps over.
  if (doc.is_object() && doc.contains("sweep")) {
    if (!doc.at("sweep").is_object())
      throw spec::SpecError(file, "/sweep",
                            "expected an object of KEY: [VALUES...], e.g. {\"seed\": [0, 1, 2]}; got " +
                                spec::show_value(doc.at("sweep")));
    doc.erase("sweep");
  }
  // A bad --set names the option, and the file it was applied to (several
  // specs in one run may take it differently).
  if (!overrides.empty() && doc.contains("experiment") && doc["experiment"].is_string())
    if (const Experiment* e = find_experiment(doc["experiment"].get<std::string>())) {
      std::vector<std::string> names{"experiment"};
      for (const auto& p : e->params) names.push_back(p.name);
      for (const auto& [key, value] : overrides.items())
        if (std::find(names.begin(), names.end(), key) == names.end()) {
          const std::string near = spec::closest(key, names);
          throw spec::SpecError("--set " + key + " (applied to " + file + ")", "",
                                fmt::format("unknown key \"{}\" for experiment \"{}\"{}; run `attnlab list {}` for "
                                            "its parameters",
                                            key, e->name, near.empty() ? "" : " (did you mean \"" + near + "\"?)",
                                            e->name));
        }
    }
  for (const auto& [key, value] : overrides.items()) doc[key] = value;
  try {
    return check_filled(std::move(doc), file);
  } catch (const spec::SpecError& err) {
    // A value that came from --set is blamed on --set, not on the file.
    const std::string top = top_key(err.path());
    if (!overrides_source.empty() && err.file() == file && !top.empty() && overrides.contains(top))
      throw spec::SpecError(overrides_source + " " + top + " (applied to " + file + ")", err.path(), err.problem());
    throw;
  }
}

LoadedSpec load_spec(const std::string& path, const nlohmann::json& overrides) {
  return check_spec(spec::read_spec_file(path), path, overrides);
}

}  // namespace attnlab::experiments
