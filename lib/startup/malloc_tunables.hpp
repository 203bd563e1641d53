// The glibc malloc settings `attnlab` runs under, so a run's buffers land on
// transparent huge pages.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace attnlab::startup {

/// What attnlab adds to GLIBC_TUNABLES (glibc manual, "Memory Allocation
/// Tunables"; glibc 2.35+ for hugetlb):
/// - glibc.malloc.hugetlb=1: glibc advises its heaps to transparent huge
///   pages (madvise MADV_HUGEPAGE; the kernel's THP setting "madvise" or
///   "always" honours it, "never" ignores it and nothing else changes);
/// - glibc.malloc.mmap_threshold=33554432: blocks under 32 MiB come from that
///   heap, not from an mmap of their own (above 128 KiB by default), too small
///   for a huge page: a model's buffers are tens of 0.5 to 3 MiB vectors;
///   32 MiB is glibc's largest (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit);
/// - glibc.malloc.arena_max=1: rows trained in threads share the main heap
///   instead of a 64 MiB arena each, which glibc does not advise. Training
///   steps allocate nothing, so the shared lock is not contended.
/// Why: the first touch of a 4 KiB page costs 10.5 us on this course's 2-core
/// VM, of a 2 MiB huge page 0.25 us per 4 KiB (tests/cli/limits_test.cpp
/// counts the faults). Every allocation's bytes and every output are the same.
/// Constant-initialised: startup/process_env.cpp reads it before any
/// constructor has run.
inline constexpr std::array<std::string_view, 3> kMallocTunables = {
    "glibc.malloc.hugetlb=1",
    "glibc.malloc.mmap_threshold=33554432",
    "glibc.malloc.arena_max=1",
};

/// `current` (GLIBC_TUNABLES's value; empty when unset) with each of
/// kMallocTunables whose name it does not set appended after a ':', so a
/// user's own value of any of them wins. malloc_tunables("") is
/// kMallocTunables joined by ':'; applying it twice changes nothing.
std::string malloc_tunables(std::string_view current);

/// The same, written into `out` without allocating; nullopt when it needs
/// more than out.size() bytes. For startup/process_env.cpp, which runs
/// before any constructor and before `environ` is set, when an LD_PRELOAD'ed
/// malloc that reads its settings on its first call (jemalloc's MALLOC_CONF,
/// tests/cli/malloc_cap.cc) would read none.
std::optional<std::string_view> malloc_tunables(std::string_view current, std::span<char> out);

}  // namespace attnlab::startup
