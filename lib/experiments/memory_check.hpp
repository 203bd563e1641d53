// Refusing a run that would not fit, before any work: each kind's estimate
// (Experiment::memory) against every limit in force (resources/memory_limits.hpp).
#pragma once

#include <vector>

#include "experiments/registry.hpp"
#include "resources/memory_limits.hpp"

namespace attnlab::experiments {

/// What OpenBLAS maps for each product running at once: Debian's build
/// mallocs a 128 MiB buffer (BUFFER_SIZE) for a thread's first sgemm,
/// and retries for ever when it cannot (seen under `ulimit -v`). It touches
/// only the part it packs into, so it costs address space, not memory.
constexpr double kBlasBufferBytes = 128.0 * (1 << 20) + 64 * 1024;

/// What glibc reserves for each new thread's malloc arena (HEAP_MAX_SIZE,
/// 64 MiB on 64-bit): address space, again, not memory.
constexpr double kThreadArenaBytes = 64.0 * (1 << 20);

/// What each thread adds to a kind's estimate, by what a limit counts.
/// Address space: OpenBLAS's buffer, plus for each thread beyond the main
/// one its stack (RLIMIT_STACK, 8 MiB by default) and its malloc arena.
/// Resident: the pages of those it touches, which grow with the products'
/// sizes: 0.25 MiB for the course's, 41 MiB for a (32768 x 1024) by
/// (1024 x 3072) sgemm (measured as VmRSS before and after the call).
double thread_address_space_bytes(bool own_thread);
constexpr double kThreadResidentBytes = 48.0 * (1 << 20);

/// The whole need of a run under a limit that counts `counts`: the kind's
/// bytes plus its threads' cost.
double memory_need(const MemoryEstimate& e, resources::MemoryLimit::Counts counts);

/// The largest number of jobs, at most `jobs`, with which the run fits
/// every limit (its results do not depend on it); 0 when even one does not.
int jobs_that_fit(const LoadedSpec& spec, int jobs, const std::vector<resources::MemoryLimit>& limits);

/// Throws spec::SpecError (exit 2) naming the spec's file, the parameter
/// that drives the estimate, the estimate, the limit and where the limit
/// comes from (the tightest, when several are exceeded), when the run's
/// need is above any limit's headroom:
///   "experiments/sqrt_d.json: at /widths/0: the run needs about 24.4 GiB
///    of memory (estimated before any work), more than the 17.9 GiB allowed
///    by 80% of MemAvailable; reduce widths or n_keys"
void check_memory(const LoadedSpec& spec, int jobs, const std::vector<resources::MemoryLimit>& limits);

}  // namespace attnlab::experiments
