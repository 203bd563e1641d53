#include "threads/phased_parts.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

namespace attnlab::threads {
namespace {

// Every (phase, part) once, and phase k of all parts before phase k + 1 of any:
// each step records how many steps of its own phase had ended before it, and
// a step of phase k must see all parts of phase k - 1 finished.
void check_phases(int parts, int phases) {
  std::vector<std::atomic<int>> done(std::size_t(phases + 1));
  std::mutex m;
  std::multiset<std::tuple<int, int>> seen;
  std::set<std::thread::id> threads_used;
  std::atomic<int> out_of_order{0};
  run_parts_in_phases(parts, phases, [&](int phase, int part) {
    if (phase > 0 && done[std::size_t(phase - 1)].load() != parts) ++out_of_order;
    // a little work, so that a part that ran ahead would be caught
    volatile double x = 0;
    for (int i = 0; i < 2000 * (part + 1); ++i) x = x + i;
    {
      std::lock_guard<std::mutex> lock(m);
      seen.emplace(phase, part);
      threads_used.insert(std::this_thread::get_id());
    }
    ++done[std::size_t(phase)];
  });
  EXPECT_EQ(out_of_order.load(), 0) << parts << " parts, " << phases << " phases";
  ASSERT_EQ(seen.size(), std::size_t(parts) * std::size_t(phases));
  for (int phase = 0; phase < phases; ++phase)
    for (int part = 0; part < parts; ++part) EXPECT_EQ(seen.count({phase, part}), 1u) << phase << "," << part;
  if (phases > 0) {
    EXPECT_EQ(threads_used.size(), std::size_t(parts));  // one thread per part here
  }
}

TEST(PhasedParts, EveryStepOnceAndPhasesInOrder) {
  for (int parts : {1, 2, 3})
    for (int phases : {0, 1, 3, 7}) check_phases(parts, phases);
}

TEST(PhasedParts, MorePartsThanCoresAndRepeatedCalls) {
  const int parts = int(std::max(2u, std::thread::hardware_concurrency())) * 3;
  for (int call = 0; call < 20; ++call) check_phases(parts, 3);
  for (int call = 0; call < 200; ++call) check_phases(2, 3);  // the helpers are kept, not restarted
}

TEST(PhasedParts, ConcurrentCallersKeepTheirOwnHelpers) {
  std::atomic<int> total{0};
  auto caller = [&] {
    for (int call = 0; call < 50; ++call)
      run_parts_in_phases(3, 2, [&](int, int) { ++total; });
  };
  std::thread a(caller), b(caller);
  a.join();
  b.join();
  EXPECT_EQ(total.load(), 2 * 50 * 3 * 2);
}

}  // namespace
}  // namespace attnlab::threads
