// Independent runs (the rows of a table) spread over threads.
#pragma once

#include <functional>
#include <vector>

namespace attnlab::training {

/// Calls task(i) for i in [0, n) on up to `jobs` threads; each task must own
/// its generator and buffers, so results do not depend on `jobs`. The first
/// exception thrown by a task is rethrown after every thread has stopped.
/// `cost`, when given (n values), is each task's expected run time in any
/// unit: tasks start longest first, so the last one to finish is not a long
/// one started late. Results must be stored by index, so the order in which
/// tasks run never shows in the output. When a thread cannot be started
/// (no address space for its stack, a process limit), the work goes to the
/// threads that did start, or to the calling thread: fewer at once, never a
/// failure. While tasks run, the threads without one (jobs above n, and
/// each worker that has run out of tasks) count as spare cores
/// (spare_cores.hpp), which a task's split training step borrows; at most
/// min(jobs, the machine's hardware threads) cores are busy or lent.
void run_parallel(int n, int jobs, const std::function<void(int)>& task, const std::vector<double>& cost = {});

}  // namespace attnlab::training
