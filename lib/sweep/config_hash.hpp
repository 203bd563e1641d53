// What identifies a run: the canonical form of its resolved spec, and the
// hash of that form which names the run's folder. Resume goes by this hash,
// never by a run's position in the sweep, so reordering, extending or
// narrowing a sweep never reruns, skips or confuses a finished run.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "experiments/registry.hpp"

namespace attnlab::sweep {

/// The resolved spec as one canonical JSON object: every default filled in
/// (check_spec does that), keys sorted (nlohmann::json keeps them so), and
/// the values of Number parameters written as floating point, so that
/// lr=1 and lr=1.0 are the same run.
nlohmann::json canonical_spec(const experiments::LoadedSpec& loaded);

/// 16 hexadecimal digits: the 64-bit FNV-1a hash of canonical.dump(),
/// finished with MurmurHash3's fmix64 so that similar specs get unlike names. Not a
/// cryptographic hash; a collision between two different specs would still
/// be caught, because a run folder keeps its spec.json and resume compares
/// it with the planned spec (run_dir.hpp).
std::string config_hash(const nlohmann::json& canonical);

}  // namespace attnlab::sweep
