// What must hold for every spec the loader accepts, whatever bytes it came
// from: the fuzz targets call this after each successful load. A failure
// aborts, which libFuzzer reports as a crash with the input that caused it.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "experiments/memory_check.hpp"
#include "experiments/registry.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::fuzz {

[[noreturn]] inline void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "invariant broken: %s: %s\n", what, detail.c_str());
  std::abort();
}

inline void check_loaded(const experiments::LoadedSpec& loaded) {
  // The resolved spec loads again, to itself (what `attnlab show` prints is a spec).
  const experiments::LoadedSpec again = experiments::check_spec(loaded.spec, loaded.file);
  if (again.spec != loaded.spec || again.experiment != loaded.experiment) broken("show is not a fixed point", loaded.spec.dump());
  // Its estimate is a real size, and the refusal works both ways.
  for (int jobs : {1, 2, 256}) {
    const experiments::MemoryEstimate e = loaded.experiment->memory(loaded.spec, jobs);
    if (!std::isfinite(e.bytes) || e.bytes <= 0) broken("estimate not a positive size", loaded.spec.dump());
    if (e.threads < 1 || e.threads > jobs) broken("estimate's threads beyond --jobs", loaded.spec.dump());
    if (!e.parameter.empty() && e.parameter[0] != '/') broken("estimate's parameter not a JSON pointer", e.parameter);
    const resources::MemoryLimit huge{resources::MemoryLimit::Counts::address_space, 1e30, 1e30, "huge"};
    const resources::MemoryLimit tiny{resources::MemoryLimit::Counts::resident, 1, 1, "tiny"};
    experiments::check_memory(loaded, jobs, {huge});  // must not throw
    try {
      experiments::check_memory(loaded, jobs, {tiny});
      broken("not refused under a 1-byte limit", loaded.spec.dump());
    } catch (const spec::SpecError&) {
    }
  }
}

}  // namespace attnlab::fuzz
