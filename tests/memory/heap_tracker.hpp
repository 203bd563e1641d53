// The heap this test program holds, byte for byte: every operator new and,
// through the linker's --wrap (tests/CMakeLists.txt), every malloc, calloc,
// realloc, posix_memalign, aligned_alloc and free of our own code. Used to
// hold each kind's memory estimate to what its run really allocates.
#pragma once

#include <cstddef>

namespace attnlab::testing {

/// Bytes allocated and not yet freed, as requested (not as malloc rounds them).
long long heap_now();
/// The most heap_now() has been since the last reset_heap_peak().
long long heap_peak();
void reset_heap_peak();

}  // namespace attnlab::testing
