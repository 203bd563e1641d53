#include "training/spare_cores.hpp"

#include <atomic>

namespace attnlab::training {

namespace {
std::atomic<int> spare{0};
}

bool borrow_spare_core() {
  int now = spare.load(std::memory_order_relaxed);
  while (now > 0)
    if (spare.compare_exchange_weak(now, now - 1, std::memory_order_acq_rel)) return true;
  return false;
}

void return_spare_core() { spare.fetch_add(1, std::memory_order_acq_rel); }

SpareCores::SpareCores(int n) : n_(0) { add(n); }

SpareCores::~SpareCores() { spare.fetch_sub(n_.load(), std::memory_order_acq_rel); }

void SpareCores::add(int n) {
  if (n <= 0) return;
  n_.fetch_add(n, std::memory_order_relaxed);
  spare.fetch_add(n, std::memory_order_acq_rel);
}

int spare_cores() { return spare.load(std::memory_order_acquire); }

}  // namespace attnlab::training
