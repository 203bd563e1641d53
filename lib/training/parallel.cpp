#include "training/parallel.hpp"

#include "training/spare_cores.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <numeric>
#include <system_error>
#include <thread>
#include <vector>

namespace attnlab::training {

void run_parallel(int n, int jobs, const std::function<void(int)>& task, const std::vector<double>& cost) {
  const int workers = std::max(1, std::min(jobs, n));
  // Threads given but without a row, and each worker once it runs out of
  // rows, lend their core to the rows still training (split_step.hpp); never
  // more cores than the machine has, where a borrowed one would only take
  // turns with the thread that lent it.
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int cores = std::min(jobs, hardware);
  SpareCores idle(cores - workers);
  std::atomic<int> active{workers};
  if (workers == 1) {
    for (int i = 0; i < n; ++i) task(i);
    return;
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (static_cast<int>(cost.size()) == n)
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  std::atomic<int> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (int i = next++; i < n; i = next++) {
      try {
        task(order[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = n;  // stop handing out work
      }
    }
    if (--active < cores) idle.add(1);
  };
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (int w = 0; w < workers; ++w) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error&) {
      // No room for another thread (a stack under `ulimit -v`, a process
      // limit): those started share the work; with none, this thread does it.
      if (threads.empty()) worker();
      break;
    }
  }
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace attnlab::training
