// What this process may still allocate: the machine's free memory, its own
// resource limits, its cgroup's, and the user's --max-memory. Read before a
// run starts, so that a run too big for them is refused with its estimate
// instead of meeting the OOM killer (or an allocation failure) mid-way.
#pragma once

#include <string>
#include <vector>

namespace attnlab::resources {

/// What the process holds now, from /proc/self/status (bytes; 0 when unknown).
struct ProcessMemory {
  double rss = 0;      // VmRSS: resident now
  double vm_size = 0;  // VmSize: address space mapped (what RLIMIT_AS counts)
  double vm_data = 0;  // VmData: private writable mappings (what RLIMIT_DATA counts)
};
ProcessMemory process_memory();

/// One ceiling. `headroom` is what the process may still add before it is
/// reached; `kind` says what it counts, so the caller adds what it must
/// (thread stacks and reserved buffers count against address space only).
struct MemoryLimit {
  enum class Counts { resident, address_space } counts = Counts::resident;
  double limit = 0;     // the limit itself, bytes
  double headroom = 0;  // limit minus what already counts against it, bytes
  std::string source;   // for messages: "80% of MemAvailable", "ulimit -v (RLIMIT_AS)", ...
};

/// Every limit in force, in this order, each only when present:
///   80% of MemAvailable (/proc/meminfo; the rest is left to the page cache
///     and to other processes),
///   RLIMIT_AS (ulimit -v) against VmSize, RLIMIT_DATA (ulimit -d) against VmData,
///   the cgroup's memory.max - memory.current (v2) or memory.limit_in_bytes -
///     memory.usage_in_bytes (v1), less its inactive page cache (reclaimed
///     before the limit bites), the tightest of the process's cgroup and its
///     ancestors (Slurm, systemd and containers limit jobs this way),
///   `max_memory` (bytes of resident memory for the whole process, 0 = none:
///     attnlab's --max-memory) against VmRSS.
std::vector<MemoryLimit> memory_limits(double max_memory = 0);

/// The same readings from given file contents, for tests: `meminfo` as
/// /proc/meminfo, `status` as /proc/self/status. Empty text = absent.
double mem_available(const std::string& meminfo);
ProcessMemory parse_status(const std::string& status);

/// The memory cgroup folders whose limits apply to this process, innermost
/// first up to the hierarchy's mount, from /proc/self/mountinfo and
/// /proc/self/cgroup; `v2` says which files they hold.
struct CgroupDirs {
  std::vector<std::string> dirs;
  bool v2 = false;
};
CgroupDirs cgroup_memory_dirs(const std::string& mountinfo, const std::string& proc_cgroup);

}  // namespace attnlab::resources
