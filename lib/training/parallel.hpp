// Independent runs (the rows of a table) spread over threads.
#pragma once

#include <functional>

namespace attnlab::training {

/// Calls task(i) for i in [0, n) on up to `jobs` threads; each task must own
/// its generator and buffers, so results do not depend on `jobs`. The first
/// exception thrown by a task is rethrown after every thread has stopped.
void run_parallel(int n, int jobs, const std::function<void(int)>& task);

}  // namespace attnlab::training
