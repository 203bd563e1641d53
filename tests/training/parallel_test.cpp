// run_parallel when threads cannot be started: the work is still done, by
// fewer threads, instead of std::terminate on a half-built pool.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "training/parallel.hpp"

namespace attnlab::testing {
namespace {

TEST(RunParallel, EveryTaskRunsOnceAnyJobs) {
  for (int jobs : {1, 2, 7}) {
    std::vector<std::atomic<int>> ran(20);
    training::run_parallel(20, jobs, [&](int i) { ++ran[i]; });
    for (int i = 0; i < 20; ++i) EXPECT_EQ(ran[i].load(), 1) << "jobs " << jobs << ", task " << i;
  }
}

// VmSize of /proc/self/status, in bytes.
rlim_t vm_size_bytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  rlim_t kb = 0;
  while (in >> key)
    if (key == "VmSize:" && in >> kb) return kb * 1024;
  return 0;
}

#ifndef ATTNLAB_SANITIZED_BUILD  // ASan reserves terabytes of address space: no RLIMIT_AS under it
// In a fresh process (glibc keeps the stacks of finished threads for reuse):
// an address-space limit 4 MiB above what it maps, so no thread's 8 MiB
// stack fits.
void run_where_no_thread_starts() {
  const rlim_t mapped = vm_size_bytes();
  rlimit as{mapped + (4u << 20), mapped + (4u << 20)};
  if (mapped == 0 || ::setrlimit(RLIMIT_AS, &as) != 0) std::_Exit(3);
  try {  // the premise: no thread starts here
    std::thread([] {}).join();
    std::_Exit(4);
  } catch (const std::system_error&) {
  }
  int sum = 0;
  try {
    training::run_parallel(10, 4, [&](int i) { sum += i; });
  } catch (...) {
    std::_Exit(2);
  }
  std::_Exit(sum == 45 ? 0 : 1);
}

TEST(RunParallel, ThreadsThatCannotStartLeaveTheWorkToTheOthers) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // re-executes the test binary
  // 1: wrong sum, 2: threw, 3: setrlimit failed, 4: a thread did start (no test)
  EXPECT_EXIT(run_where_no_thread_starts(), ::testing::ExitedWithCode(0), "");
}
#endif

}  // namespace
}  // namespace attnlab::testing
