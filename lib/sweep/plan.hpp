// A sweep's plan: its axes (from the spec's "sweep" block and the command
// line), the runs they multiply into, in a stable order, each checked and
// named by its config hash before the first one starts.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace attnlab::sweep {

/// One overridden key and the values it takes (one value: a fixed override).
struct Axis {
  std::string key;
  std::vector<nlohmann::json> values;
  bool swept() const { return values.size() > 1; }
};

/// One run of the sweep.
struct PlannedRun {
  std::size_t index = 0;  // position in the Cartesian product (display only; resume goes by hash)
  std::vector<std::pair<std::string, nlohmann::json>> params;  // every axis's value, in axis order
  nlohmann::json spec;    // canonical resolved spec (config_hash.hpp): what the run computes
  std::string hash;       // config_hash(spec): the run's folder name
};

struct Plan {
  std::string spec_file;  // as given on the command line
  std::string kind;       // the experiment kind
  std::vector<Axis> axes;
  std::vector<PlannedRun> runs;
};

/// Reads SPEC_FILE, takes its "sweep" block (KEY: [values] or KEY: "grammar")
/// and the command line's KEY=VALUES arguments (override_grammar.hpp; a key
/// given on the command line replaces the spec's axis for it), and expands
/// the Cartesian product. Axis order: the spec's sweep keys (sorted), then
/// the command line's in the order given; the last axis varies fastest.
/// Every combination is checked as `attnlab run` would check it; refusals
/// throw spec::SpecError naming each refused combination (run index and
/// overrides) and the rule it breaks, as do unknown keys, a key given twice,
/// more than kMaxRuns runs, and two combinations that compute the same spec.
Plan make_plan(const std::string& spec_file, const std::vector<std::string>& overrides);

/// The same for a spec already parsed (tests).
Plan make_plan_from(nlohmann::json doc, const std::string& spec_file, const std::vector<std::string>& overrides);

/// Replicate keys: runs that differ only in these are the samples of one
/// table (mean ± std over them). "seed" (the model's draws) and "data_seed"
/// (the data set's).
bool is_seed_key(const std::string& key);

/// The swept keys that are not seeds: each combination of them is a table.
std::vector<std::string> group_keys(const Plan& plan);

/// "seed=2, lr=0.001": a run's values for the swept axes (every axis when
/// `all`), as overrides are written.
std::string describe(const Plan& plan, const PlannedRun& run, bool all = false);

/// "run 3 (seed=3)", or "run 3" when nothing is swept: a run in messages.
std::string describe_run(const Plan& plan, const PlannedRun& run);

inline constexpr std::size_t kMaxRuns = 100000;

}  // namespace attnlab::sweep
