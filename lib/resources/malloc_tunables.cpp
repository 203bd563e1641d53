#include "resources/malloc_tunables.hpp"

#include <set>
#include <sstream>

namespace attnlab::resources {

const std::vector<std::string> kMallocTunables = {
    "glibc.malloc.hugetlb=1",
    "glibc.malloc.mmap_threshold=33554432",  // 32 MiB: glibc's largest (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit)
    "glibc.malloc.arena_max=1",
};

namespace {

std::string name_of(const std::string& item) { return item.substr(0, item.find('=')); }

}  // namespace

std::string malloc_tunables(const std::string& current) {
  // GLIBC_TUNABLES is name=value items separated by ':'.
  std::set<std::string> named;
  std::istringstream items(current);
  for (std::string item; std::getline(items, item, ':');)
    if (!item.empty()) named.insert(name_of(item));
  std::string out = current;
  for (const auto& ours : kMallocTunables) {
    if (named.count(name_of(ours))) continue;
    if (!out.empty() && out.back() != ':') out += ':';
    out += ours;
  }
  return out;
}

}  // namespace attnlab::resources
