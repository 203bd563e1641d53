// Reading what the process may still allocate: sizes as people write them,
// /proc's fields, the cgroup folders that apply, and the limits in force.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cmath>

#include "resources/byte_size.hpp"
#include "resources/memory_limits.hpp"

namespace attnlab::testing {
namespace {

using resources::parse_byte_size;

TEST(ByteSize, ParsesWhatUlimitFreeAndSlurmAccept) {
  EXPECT_EQ(parse_byte_size("1000000"), 1000000.0);
  EXPECT_EQ(parse_byte_size("512"), 512.0);
  EXPECT_EQ(parse_byte_size("8G"), 8.0 * (1ull << 30));
  EXPECT_EQ(parse_byte_size("8g"), 8.0 * (1ull << 30));
  EXPECT_EQ(parse_byte_size("8GiB"), 8.0 * (1ull << 30));
  EXPECT_EQ(parse_byte_size("8GB"), 8.0 * (1ull << 30));
  EXPECT_EQ(parse_byte_size("512M"), 512.0 * (1 << 20));
  EXPECT_EQ(parse_byte_size("1.5k"), 1536.0);
  EXPECT_EQ(parse_byte_size("2T"), 2.0 * (1ull << 40));
  EXPECT_EQ(parse_byte_size("0"), 0.0);
  EXPECT_EQ(parse_byte_size("7b"), 7.0);
}

TEST(ByteSize, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "G", "-1G", "8X", "8 G", "8G ", "inf", "nan", "1e400", "0x10", "8GG", " 8G", "+8G"})
    EXPECT_FALSE(parse_byte_size(bad)) << "'" << bad << "'";
}

TEST(ByteSize, FormatsWithBinaryUnits) {
  EXPECT_EQ(resources::format_bytes(812), "812 B");
  EXPECT_EQ(resources::format_bytes(3.4 * 1024), "3.40 KiB");
  EXPECT_EQ(resources::format_bytes(25.6 * (1 << 20)), "25.6 MiB");
  EXPECT_EQ(resources::format_bytes(128.0 * (1 << 30)), "128 GiB");
  EXPECT_EQ(resources::format_bytes(1.32 * (1ull << 40)), "1.32 TiB");
}

TEST(ProcFiles, ReadsMemAvailableAndTheProcessSizes) {
  EXPECT_EQ(resources::mem_available("MemTotal:  24683584 kB\nMemFree:   22713912 kB\nMemAvailable:   23560484 kB\n"),
            23560484.0 * 1024);
  EXPECT_EQ(resources::mem_available("MemTotal:  24683584 kB\n"), 0.0);  // an old kernel: absent
  const auto p = resources::parse_status("Name:\tattnlab\nVmPeak:\t  9000 kB\nVmSize:\t    3900 kB\nVmData:\t     432 kB\n"
                                         "VmRSS:\t    2056 kB\n");
  EXPECT_EQ(p.vm_size, 3900.0 * 1024);
  EXPECT_EQ(p.vm_data, 432.0 * 1024);
  EXPECT_EQ(p.rss, 2056.0 * 1024);
  const auto now = resources::process_memory();  // this test program, read for real
  EXPECT_GT(now.rss, 1 << 20);
  EXPECT_GE(now.vm_size, now.rss);
}

TEST(Cgroups, FindsTheFoldersOfAVersionTwoHierarchy) {
  const auto dirs = resources::cgroup_memory_dirs(
      "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n", "0::/system.slice/job42.scope\n");
  EXPECT_TRUE(dirs.v2);
  EXPECT_EQ(dirs.dirs, (std::vector<std::string>{"/sys/fs/cgroup/system.slice/job42.scope",
                                                 "/sys/fs/cgroup/system.slice", "/sys/fs/cgroup"}));
}

TEST(Cgroups, FindsTheMemoryControllerOfVersionOne) {
  // As on this machine: the memory hierarchy among others, the process in a nested group.
  const std::string mountinfo =
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";
  const auto dirs = resources::cgroup_memory_dirs(mountinfo, "5:devices:/\n4:memory:/process_api/ecfe\n1:cpu:/\n0::/\n");
  EXPECT_FALSE(dirs.v2);
  EXPECT_EQ(dirs.dirs, (std::vector<std::string>{"/sys/fs/cgroup/memory/process_api/ecfe",
                                                 "/sys/fs/cgroup/memory/process_api", "/sys/fs/cgroup/memory"}));
}

TEST(Cgroups, AContainerSeesItsOwnGroupAsTheRoot) {
  // The mount's root is the container's group: paths are relative to it.
  const auto dirs = resources::cgroup_memory_dirs("40 30 0:26 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n",
                                                  "0::/docker/abc\n");
  EXPECT_EQ(dirs.dirs, (std::vector<std::string>{"/sys/fs/cgroup"}));
  EXPECT_TRUE(resources::cgroup_memory_dirs("", "0::/\n").dirs.empty());  // no cgroup file system
}

TEST(MemoryLimits, MaxMemoryCountsWhatTheProcessHoldsAlready) {
  const auto limits = resources::memory_limits(1.0 * (1ull << 30));
  const auto it = std::find_if(limits.begin(), limits.end(), [](const auto& l) { return l.source == "--max-memory"; });
  ASSERT_NE(it, limits.end());
  EXPECT_EQ(it->limit, 1.0 * (1ull << 30));
  EXPECT_LT(it->headroom, it->limit);  // this program's own resident memory is subtracted
  EXPECT_GT(it->headroom, it->limit - (256 << 20));
  EXPECT_EQ(it->counts, resources::MemoryLimit::Counts::resident);
  const auto available = std::find_if(limits.begin(), limits.end(),
                                      [](const auto& l) { return l.source == "80% of MemAvailable"; });
  ASSERT_NE(available, limits.end());  // every Linux since 3.14 has it
  EXPECT_GT(available->headroom, 0);
}

TEST(MemoryLimits, AnAddressSpaceLimitIsReadWithWhatIsMapped) {
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_DATA, &saved), 0);
  // Lower the soft data limit to a finite, harmless value and read it back.
  rlimit lowered = saved;
  lowered.rlim_cur = saved.rlim_max == RLIM_INFINITY ? (rlim_t{1} << 50) : saved.rlim_max;
  ASSERT_EQ(::setrlimit(RLIMIT_DATA, &lowered), 0);
  const auto limits = resources::memory_limits();
  ::setrlimit(RLIMIT_DATA, &saved);
  const auto it = std::find_if(limits.begin(), limits.end(),
                               [](const auto& l) { return l.source == "ulimit -d (RLIMIT_DATA)"; });
  ASSERT_NE(it, limits.end());
  EXPECT_EQ(it->limit, static_cast<double>(lowered.rlim_cur));
  EXPECT_EQ(it->counts, resources::MemoryLimit::Counts::address_space);
  EXPECT_LT(it->headroom, it->limit);  // VmData is subtracted
}

}  // namespace
}  // namespace attnlab::testing
