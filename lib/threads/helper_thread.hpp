// A second thread that runs one job at a time, handed over and waited for
// without allocating, so a split training step (training/split_step.hpp) or
// a phased flash forward (threads/phased_parts.hpp) costs a hand-over, not a
// thread start, per call. Both sides spin a short while before they sleep: a
// step lasts about a millisecond, and waking a sleeping thread on this kind
// of machine (a virtual CPU) costs a good part of that.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace attnlab::threads {

class HelperThread {
 public:
  HelperThread() = default;
  ~HelperThread();
  HelperThread(const HelperThread&) = delete;
  HelperThread& operator=(const HelperThread&) = delete;

  /// Runs `job` on the helper (started on first use) while the caller runs
  /// `here`, and returns when both are done; an exception from either is
  /// rethrown here (the caller's first). When no thread can be started, runs
  /// both on the calling thread, `here` first. Both must stay valid until
  /// this returns.
  template <class Job, class Here>
  void run_beside(Job& job, Here& here) {
    run_beside_(call(job), call(here));
  }

  /// Hands `job` to the helper (started on first use) and returns at once;
  /// wait() returns when it is done. Returns false, and runs nothing, when no
  /// thread can be started (no room for a stack, a process limit): the
  /// caller then runs the job itself. `job` must stay valid until wait()
  /// returns; one job at a time.
  template <class Job>
  bool post(Job& job) {
    return post_(call(job));
  }

  /// Waits for the job post() handed over; rethrows its exception, if any.
  void wait();

 private:
  // A callable by reference, without std::function's allocation.
  struct Call {
    void (*fn)(void*) = nullptr;
    void* arg = nullptr;
    void operator()() const { fn(arg); }
  };
  template <class F>
  static Call call(F& f) {
    return Call{[](void* p) { (*static_cast<F*>(p))(); }, &f};
  }
  enum State : int { idle, posted, stopping };
  void run_beside_(Call job, Call here);
  bool post_(Call job);
  void loop();
  void set(State s);                 // under the mutex, then wakes a sleeper
  void wait_while(State s);          // spins, then sleeps, until the state is not s
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<int> state_{idle};
  Call job_;                         // the job posted, run once
  std::exception_ptr failure_;       // the job's, handed back with idle
  std::thread thread_;
};

}  // namespace attnlab::threads
