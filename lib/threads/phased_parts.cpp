#include "threads/phased_parts.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "threads/helper_thread.hpp"
#include "threads/spin.hpp"

namespace attnlab::threads::detail {

namespace {

// A barrier for a fixed number of arrivals per phase; one thread may arrive
// for several parts at once (the caller, for parts whose helper did not
// start). Waiters spin, then sleep on the generation counter; the last
// arrival wakes sleepers only when there are any, so a phase change costs no
// system call while everyone spins.
class SpinBarrier {
 public:
  explicit SpinBarrier(int arrivals) : arrivals_(arrivals) {}

  void arrive_and_wait(int count) {
    const unsigned generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(count, std::memory_order_acq_rel) + count == arrivals_) {
      arrived_.store(0, std::memory_order_relaxed);  // ordered before the next phase by the increment
      generation_.fetch_add(1, std::memory_order_seq_cst);
      if (sleepers_.load(std::memory_order_seq_cst) > 0) generation_.notify_all();
      return;
    }
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 0; generation_.load(std::memory_order_acquire) == generation; ++i) {
      relax();
      if (i % 64 == 63 && std::chrono::steady_clock::now() > until) {
        // seq_cst on both sides: either the last arrival sees this sleeper,
        // or the wait below sees the new generation and does not sleep.
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        while (generation_.load(std::memory_order_seq_cst) == generation) generation_.wait(generation);
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
        return;
      }
    }
  }

 private:
  const int arrivals_;
  std::atomic<int> arrived_{0};
  std::atomic<unsigned> generation_{0};
  std::atomic<int> sleepers_{0};
};

// One helper's share: every phase of its part, a barrier after each.
struct PartJob {
  const PhaseStep* step = nullptr;
  SpinBarrier* sync = nullptr;
  int part = 0;
  int phases = 0;
  void operator()() const noexcept {
    for (int phase = 0; phase < phases; ++phase) {
      (*step)(phase, part);
      sync->arrive_and_wait(1);
    }
  }
};

// The calling thread's helpers, grown to the most parts it has asked for.
struct Pool {
  std::vector<std::unique_ptr<HelperThread>> helpers;
  std::vector<PartJob> jobs;
  std::vector<char> posted;
};

}  // namespace

void run_parts_in_phases(int parts, int phases, PhaseStep step) {
  if (parts <= 1) {
    for (int phase = 0; phase < phases; ++phase) step(phase, 0);
    return;
  }
  thread_local Pool pool;
  const std::size_t others = std::size_t(parts - 1);
  while (pool.helpers.size() < others) pool.helpers.push_back(std::make_unique<HelperThread>());
  pool.jobs.resize(std::max(pool.jobs.size(), others));
  pool.posted.resize(std::max(pool.posted.size(), others));

  SpinBarrier sync(parts);
  int mine = 1;  // parts this thread runs: its own and those of helpers that did not start
  for (std::size_t k = 0; k < others; ++k) {
    pool.jobs[k] = PartJob{&step, &sync, int(k) + 1, phases};
    pool.posted[k] = pool.helpers[k]->post(pool.jobs[k]);
    if (!pool.posted[k]) ++mine;
  }
  // noexcept: a step that threw here would leave the helpers at a barrier
  // that is about to go out of scope.
  const auto run_mine = [&]() noexcept {
    for (int phase = 0; phase < phases; ++phase) {
      step(phase, 0);
      for (std::size_t k = 0; k < others; ++k)
        if (!pool.posted[k]) step(phase, int(k) + 1);
      sync.arrive_and_wait(mine);
    }
  };
  run_mine();
  for (std::size_t k = 0; k < others; ++k)
    if (pool.posted[k]) pool.helpers[k]->wait();
}

}  // namespace attnlab::threads::detail
