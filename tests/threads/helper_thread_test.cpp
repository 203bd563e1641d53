#include "threads/helper_thread.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

namespace attnlab::threads {
namespace {

TEST(HelperThread, RunsBothAndRethrowsEitherFailure) {
  HelperThread helper;
  int a = 0, b = 0;
  auto job = [&] { a += 1; };
  auto here = [&] { b += 2; };
  for (int i = 0; i < 100; ++i) helper.run_beside(job, here);
  EXPECT_EQ(a, 100);
  EXPECT_EQ(b, 200);
  auto fails = [] { throw std::runtime_error("helper"); };
  EXPECT_THROW(helper.run_beside(fails, here), std::runtime_error);
  EXPECT_THROW(helper.run_beside(job, fails), std::runtime_error);
  helper.run_beside(job, here);  // still usable after a failure
  EXPECT_EQ(a, 102);
}

TEST(HelperThread, PostedJobRunsOnAnotherThreadAndWaitRethrows) {
  HelperThread helper;
  const auto caller = std::this_thread::get_id();
  std::thread::id ran_on;
  std::atomic<bool> go{false};
  int runs = 0;
  auto job = [&] {
    while (!go.load()) {}  // post() returned before the job ended
    ran_on = std::this_thread::get_id();
    ++runs;
  };
  ASSERT_TRUE(helper.post(job));
  go = true;
  helper.wait();
  EXPECT_EQ(runs, 1);
  EXPECT_NE(ran_on, caller);
  auto fails = [] { throw std::invalid_argument("posted"); };
  ASSERT_TRUE(helper.post(fails));
  EXPECT_THROW(helper.wait(), std::invalid_argument);
  ASSERT_TRUE(helper.post(job));
  helper.wait();  // the failure was handed back once, not kept
  EXPECT_EQ(runs, 2);
}

}  // namespace
}  // namespace attnlab::threads
