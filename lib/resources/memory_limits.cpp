#include "resources/memory_limits.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

namespace attnlab::resources {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The value in kB after "Key:" in /proc's "Key:   1234 kB" lines, in bytes; 0 if absent.
double kb_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size() + 1, key + ":") == 0) {
      std::istringstream fields(line.substr(key.size() + 1));
      double kb = 0;
      fields >> kb;
      return kb * 1024;
    }
  return 0;
}

// A cgroup file holding one number, or "max"; nullopt-like -1 when absent or unlimited.
double cgroup_number(const std::string& path) {
  const std::string text = read_text(path);
  if (text.empty() || text.compare(0, 3, "max") == 0) return -1;
  try {
    const double v = std::stod(text);
    return v >= 0x1p62 ? -1 : v;  // v1 writes "unlimited" as 2^63 rounded down to a page
  } catch (const std::exception&) {
    return -1;
  }
}

// The number after "key " in a cgroup memory.stat, 0 if absent.
double stat_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string name;
  double value = 0;
  while (in >> name >> value)
    if (name == key) return value;
  return 0;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

void add_rlimit(std::vector<MemoryLimit>& out, int resource, double used, const char* source) {
  rlimit r{};
  if (::getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return;
  const double limit = static_cast<double>(r.rlim_cur);
  out.push_back({MemoryLimit::Counts::address_space, limit, limit - used, source});
}

}  // namespace

double mem_available(const std::string& meminfo) { return kb_field(meminfo, "MemAvailable"); }

ProcessMemory parse_status(const std::string& status) {
  return {kb_field(status, "VmRSS"), kb_field(status, "VmSize"), kb_field(status, "VmData")};
}

ProcessMemory process_memory() { return parse_status(read_text("/proc/self/status")); }

CgroupDirs cgroup_memory_dirs(const std::string& mountinfo, const std::string& proc_cgroup) {
  // /proc/self/cgroup: "ID:CONTROLLERS:PATH"; v2 is "0::PATH", v1 lists "memory" among its controllers.
  std::string v1_path, v2_path;
  bool has_v1 = false, has_v2 = false;
  for (const auto& line : split(proc_cgroup, '\n')) {
    const auto a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty() && line.compare(0, 2, "0:") == 0) {
      has_v2 = true;
      v2_path = path;
    }
    for (const auto& c : split(controllers, ','))
      if (c == "memory") {
        has_v1 = true;
        v1_path = path;
      }
  }
  // mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPEROPTIONS"
  for (const auto& line : split(mountinfo, '\n')) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream head(line.substr(0, dash)), tail(line.substr(dash + 3));
    std::string id, parent, dev, root, mount, fstype, source, superopts;
    head >> id >> parent >> dev >> root >> mount;
    tail >> fstype >> source >> superopts;
    const bool v2 = fstype == "cgroup2" && has_v2 && !has_v1;
    bool v1 = false;
    if (fstype == "cgroup" && has_v1)
      for (const auto& o : split(superopts, ','))
        if (o == "memory") v1 = true;
    if (!v1 && !v2) continue;
    // The process's path is relative to the mount's root (a container sees its own cgroup as "/").
    std::string path = v1 ? v1_path : v2_path;
    if (root != "/" && path.compare(0, root.size(), root) == 0) path = path.substr(root.size());
    CgroupDirs found{{}, v2};
    for (;;) {
      found.dirs.push_back(mount + (path == "/" ? "" : path));
      if (path.empty() || path == "/") break;
      const auto slash = path.find_last_of('/');
      path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
    return found;
  }
  return {};
}

std::vector<MemoryLimit> memory_limits(double max_memory) {
  std::vector<MemoryLimit> out;
  const ProcessMemory self = process_memory();
  if (const double available = mem_available(read_text("/proc/meminfo")); available > 0)
    out.push_back({MemoryLimit::Counts::resident, 0.8 * available, 0.8 * available, "80% of MemAvailable"});
  add_rlimit(out, RLIMIT_AS, self.vm_size, "ulimit -v (RLIMIT_AS)");
  add_rlimit(out, RLIMIT_DATA, self.vm_data, "ulimit -d (RLIMIT_DATA)");
  const CgroupDirs cg = cgroup_memory_dirs(read_text("/proc/self/mountinfo"), read_text("/proc/self/cgroup"));
  MemoryLimit tightest{MemoryLimit::Counts::resident, -1, -1, ""};
  for (const auto& dir : cg.dirs) {
    const double limit = cgroup_number(dir + (cg.v2 ? "/memory.max" : "/memory.limit_in_bytes"));
    const double usage = cgroup_number(dir + (cg.v2 ? "/memory.current" : "/memory.usage_in_bytes"));
    if (limit < 0) continue;
    // Inactive page cache is reclaimed before the limit bites, so it is not in use (as docker stats counts).
    const double inactive = stat_field(read_text(dir + "/memory.stat"), cg.v2 ? "inactive_file" : "total_inactive_file");
    const double headroom = limit - std::max(usage - inactive, 0.0);
    if (tightest.headroom < 0 || headroom < tightest.headroom)
      tightest = {MemoryLimit::Counts::resident, limit, headroom,
                  std::string("cgroup ") + (cg.v2 ? "memory.max" : "memory.limit_in_bytes") + " of " + dir};
  }
  if (tightest.headroom >= 0) out.push_back(tightest);
  if (max_memory > 0) out.push_back({MemoryLimit::Counts::resident, max_memory, max_memory - self.rss, "--max-memory"});
  return out;
}

}  // namespace attnlab::resources
