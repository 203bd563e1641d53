// `attnlab validate`, `show` and `list`: everything about specs and kinds
// that runs nothing.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "commands.hpp"
#include "spec/param.hpp"
#include "spec/spec_error.hpp"
#include "spec/validate.hpp"
#include "sweep/plan.hpp"

namespace attnlab::cli {

namespace {

// One line per kind; with kind names, each one's parameters as well.
void print_list(const std::vector<std::string>& kinds, std::ostream& out) {
  std::size_t width = 0;
  for (const auto& e : experiments::all_experiments()) width = std::max(width, e.name.size());
  for (const auto& e : experiments::all_experiments()) {
    const bool detailed = std::find(kinds.begin(), kinds.end(), e.name) != kinds.end();
    if (!kinds.empty() && !detailed) continue;
    out << fmt::format("{:<{}}  {}\n", e.name, width, e.summary);
    if (!detailed) continue;
    for (const auto& p : e.params)
      out << fmt::format("    {} = {}\n        {}; {}\n", p.name, p.default_value.dump(), p.doc,
                         spec::describe_allowed(p));
  }
}

}  // namespace

CLI::App* add_validate(CLI::App& app, SpecOptions& o) {
  auto* validate = app.add_subcommand("validate", "check specs without running them");
  validate->add_option("specs", o.files, "spec files (JSON)")->required();
  validate->add_option("--set", o.sets, "override a spec key: KEY=VALUE");
  return validate;
}

CLI::App* add_show(CLI::App& app, SpecOptions& o) {
  auto* show = app.add_subcommand("show", "print a spec with every default filled in, as JSON");
  show->add_option("spec", o.files, "spec file (JSON)")->required()->expected(1);
  show->add_option("--set", o.sets, "override a spec key: KEY=VALUE");
  return show;
}

CLI::App* add_list(CLI::App& app, SpecOptions& o) {
  auto* list = app.add_subcommand("list", "list every experiment kind; name kinds to see their parameters");
  list->add_option("kinds", o.kinds, "kinds whose parameters to show");
  return list;
}

int validate_command(const SpecOptions& o) {
  const auto overrides = parse_overrides(o.sets);
  const auto loaded = load_all(o.files, overrides);
  if (!loaded) return kUsage;
  bool refused = false;
  for (const auto& s : *loaded) {
    // A spec with a "sweep" block: every combination is checked, as `attnlab sweep` would.
    nlohmann::json doc = spec::read_spec_file(s.file);
    if (!doc.contains("sweep")) {
      std::cerr << s.file << ": ok (" << s.experiment->name << ")\n";
      continue;
    }
    for (const auto& [key, value] : overrides.items()) doc[key] = value;
    try {
      const auto plan = sweep::make_plan_from(doc, s.file, {});
      std::cerr << s.file << ": ok (" << s.experiment->name << ", a sweep of " << plan.runs.size() << " run"
                << (plan.runs.size() == 1 ? "" : "s") << ")\n";
    } catch (const spec::SpecError& e) {
      std::cerr << "attnlab: error: " << e.what() << "\n";
      refused = true;
    }
  }
  return refused ? kUsage : kOk;
}

int show_command(const SpecOptions& o) {
  const auto loaded = load_all(o.files, parse_overrides(o.sets));
  if (!loaded) return kUsage;
  write_stdout((*loaded)[0].spec.dump(2) + "\n");
  return kOk;
}

int list_command(const SpecOptions& o) {
  std::vector<std::string> names;
  for (const auto& e : experiments::all_experiments()) names.push_back(e.name);
  for (const auto& k : o.kinds)
    if (!experiments::find_experiment(k)) {
      const std::string near = spec::closest(k, names);
      throw spec::SpecError("attnlab list", "",
                            "unknown experiment \"" + k + "\"" +
                                (near.empty() ? "" : " (did you mean \"" + near + "\"?)") +
                                "; run `attnlab list` for the kinds");
    }
  std::ostringstream list_text;
  print_list(o.kinds, list_text);
  write_stdout(list_text.str());
  return kOk;
}

}  // namespace attnlab::cli
