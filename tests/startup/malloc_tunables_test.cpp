// What `attnlab` sets GLIBC_TUNABLES to before it re-executes itself
// (apps/attnlab/process_env.cpp): ours added, a user's own kept and winning.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "startup/malloc_tunables.hpp"

namespace attnlab::startup {
namespace {

TEST(MallocTunables, UnsetGetsAllThree) {
  EXPECT_EQ(malloc_tunables(""),
            "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.arena_max=1");
}

TEST(MallocTunables, AUsersOwnValueWinsAndTheirOthersAreKept) {
  EXPECT_EQ(malloc_tunables("glibc.malloc.arena_max=4:glibc.malloc.check=3"),
            "glibc.malloc.arena_max=4:glibc.malloc.check=3:glibc.malloc.hugetlb=1:"
            "glibc.malloc.mmap_threshold=33554432");
  EXPECT_EQ(malloc_tunables("glibc.malloc.hugetlb=0"),
            "glibc.malloc.hugetlb=0:glibc.malloc.mmap_threshold=33554432:glibc.malloc.arena_max=1");
  // A trailing or doubled ':' is left as the user wrote it, with no empty item added.
  EXPECT_EQ(malloc_tunables("glibc.malloc.tcache_count=0:"),
            "glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:"
            "glibc.malloc.arena_max=1");
}

TEST(MallocTunables, ApplyingTwiceChangesNothing) {
  // The re-exec stops once the variable is what it wants: no exec loop.
  for (const std::string start : {"", "glibc.malloc.arena_max=2", "x=1::y=2"})
    EXPECT_EQ(malloc_tunables(malloc_tunables(start)), malloc_tunables(start)) << start;
  std::string all;
  for (const std::string_view t : kMallocTunables) {
    if (!all.empty()) all += ':';
    all += t;
  }
  EXPECT_EQ(malloc_tunables(all), all);
}

TEST(MallocTunables, IntoABufferWithoutAllocating) {
  // What the re-exec uses before main (no allocation there): the same text, or nullopt when it does not fit.
  const std::string want = malloc_tunables("glibc.malloc.check=3");
  std::array<char, 128> big{};
  EXPECT_EQ(malloc_tunables("glibc.malloc.check=3", big), std::optional<std::string_view>(want));
  std::string exact(want.size(), '\0');
  EXPECT_EQ(malloc_tunables("glibc.malloc.check=3", exact), std::optional<std::string_view>(want));
  std::string short_by_one(want.size() - 1, '\0');
  EXPECT_EQ(malloc_tunables("glibc.malloc.check=3", short_by_one), std::nullopt);
  std::array<char, 4> tiny{};
  EXPECT_EQ(malloc_tunables("glibc.malloc.check=3", tiny), std::nullopt);  // the user's own value alone is too long
}

}  // namespace
}  // namespace attnlab::startup
