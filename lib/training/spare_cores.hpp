// Cores that no table row is using, lent to a row that can split its step.
// run_parallel() knows how many threads a table was given and how many rows
// are still running; when fewer rows remain than threads, the idle ones are
// counted here, and a row's training step borrows one for the second half of
// its batch (split_step.hpp). Lending never changes a result: a split step
// computes the same bytes on one thread or two.
#pragma once

#include <atomic>

namespace attnlab::training {

/// Takes one spare core if there is one; true when taken. Thread-safe.
bool borrow_spare_core();
/// Gives back a core borrow_spare_core() took.
void return_spare_core();

/// While alive, `n` more cores count as spare (n may be 0). run_parallel
/// holds one for the threads a table was given but no row uses, and one per
/// worker thread that has run out of rows.
class SpareCores {
 public:
  explicit SpareCores(int n);
  ~SpareCores();
  SpareCores(const SpareCores&) = delete;
  SpareCores& operator=(const SpareCores&) = delete;
  void add(int n);  // n more, taken back by the destructor too; thread-safe

 private:
  std::atomic<int> n_;
};

/// How many cores are spare now (for tests).
int spare_cores();

}  // namespace attnlab::training
