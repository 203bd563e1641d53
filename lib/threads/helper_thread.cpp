#include "threads/helper_thread.hpp"

#include <chrono>
#include <system_error>

#include "threads/spin.hpp"

namespace attnlab::threads {

using detail::kSpin;
using detail::relax;

HelperThread::~HelperThread() {
  if (!thread_.joinable()) return;
  set(stopping);
  thread_.join();
}

void HelperThread::set(State s) {
  {
    std::lock_guard<std::mutex> lock(m_);
    state_.store(s, std::memory_order_release);
  }
  cv_.notify_all();
}

void HelperThread::wait_while(State s) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0; state_.load(std::memory_order_acquire) == s; ++i) {
    relax();
    if (i % 64 == 63 && std::chrono::steady_clock::now() > until) {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return state_.load(std::memory_order_acquire) != s; });
      return;
    }
  }
}

void HelperThread::loop() {
  for (;;) {
    wait_while(idle);
    if (state_.load(std::memory_order_acquire) == stopping) return;
    try {
      job_();
      failure_ = nullptr;
    } catch (...) {
      failure_ = std::current_exception();
    }
    // The poster reads failure_ only after it sees idle (release/acquire).
    std::lock_guard<std::mutex> lock(m_);
    if (state_.load(std::memory_order_relaxed) == stopping) return;
    state_.store(idle, std::memory_order_release);
    cv_.notify_all();
  }
}

bool HelperThread::post_(Call job) {
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread([this] { loop(); });
    } catch (const std::system_error&) {
      return false;
    }
  }
  job_ = job;
  set(posted);
  return true;
}

void HelperThread::wait() {
  wait_while(posted);
  std::exception_ptr theirs = std::move(failure_);
  failure_ = nullptr;
  if (theirs) std::rethrow_exception(theirs);
}

void HelperThread::run_beside_(Call job, Call here) {
  if (!post_(job)) {  // no room for a thread: both here, in order
    here();
    job();
    return;
  }
  std::exception_ptr mine;
  try {
    here();
  } catch (...) {
    mine = std::current_exception();
  }
  std::exception_ptr theirs;
  try {
    wait();
  } catch (...) {
    theirs = std::current_exception();
  }
  if (mine) std::rethrow_exception(mine);
  if (theirs) std::rethrow_exception(theirs);
}

}  // namespace attnlab::threads
