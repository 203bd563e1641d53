#include "experiments/memory_check.hpp"

#include <sys/resource.h>

#include <fmt/format.h>

#include <algorithm>

#include "resources/byte_size.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::experiments {

double thread_address_space_bytes(bool own_thread) {
  if (!own_thread) return kBlasBufferBytes;
  // glibc gives a new thread a stack of RLIMIT_STACK's soft limit (2 MiB when unlimited).
  rlimit r{};
  double stack = 8.0 * (1 << 20);
  if (::getrlimit(RLIMIT_STACK, &r) == 0) stack = r.rlim_cur == RLIM_INFINITY ? 2.0 * (1 << 20) : double(r.rlim_cur);
  return kBlasBufferBytes + stack + kThreadArenaBytes;
}

double memory_need(const MemoryEstimate& e, resources::MemoryLimit::Counts counts) {
  const int threads = std::max(e.threads, 1);
  if (counts == resources::MemoryLimit::Counts::resident) return e.bytes + threads * kThreadResidentBytes;
  // One thread is the main one, which has its stack already; more are started for the rows.
  return e.bytes + threads * thread_address_space_bytes(threads > 1);
}

namespace {

// The tightest limit the run does not fit, or nullptr.
const resources::MemoryLimit* exceeded(const MemoryEstimate& e, const std::vector<resources::MemoryLimit>& limits) {
  const resources::MemoryLimit* worst = nullptr;
  for (const auto& limit : limits)
    if (memory_need(e, limit.counts) > limit.headroom && (!worst || limit.headroom < worst->headroom)) worst = &limit;
  return worst;
}

}  // namespace

int jobs_that_fit(const LoadedSpec& spec, int jobs, const std::vector<resources::MemoryLimit>& limits) {
  for (int j = jobs; j >= 1; --j)
    if (!exceeded(spec.experiment->memory(spec.spec, j), limits)) return j;
  return 0;
}

void check_memory(const LoadedSpec& spec, int jobs, const std::vector<resources::MemoryLimit>& limits) {
  const MemoryEstimate e = spec.experiment->memory(spec.spec, jobs);
  const resources::MemoryLimit* limit = exceeded(e, limits);
  if (!limit) return;
  const double used = limit->limit - limit->headroom;
  const std::string left =
      used > 0.01 * limit->limit
          ? fmt::format("the {} left under {} ({}, of which {} is in use)",
                        resources::format_bytes(std::max(limit->headroom, 0.0)), limit->source,
                        resources::format_bytes(limit->limit), resources::format_bytes(used))
          : fmt::format("the {} allowed by {}", resources::format_bytes(limit->limit), limit->source);
  const double need = memory_need(e, limit->counts);
  const std::string what =
      limit->counts == resources::MemoryLimit::Counts::address_space
          ? fmt::format("{} of address space (estimated before any work: {} for its data and buffers, {} that "
                        "OpenBLAS and its threads map)",
                        resources::format_bytes(need), resources::format_bytes(e.bytes),
                        resources::format_bytes(need - e.bytes))
          : resources::format_bytes(need) + " of memory (estimated before any work)";
  throw spec::SpecError(spec.file, e.parameter,
                        fmt::format("the run needs about {}, more than {}; reduce {}, or raise the limit", what, left,
                                    e.reduce));
}

}  // namespace attnlab::experiments
