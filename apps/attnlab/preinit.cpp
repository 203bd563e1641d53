// What the program does before any library's initialiser runs.
#include "heap_start.hpp"
#include "process_env.hpp"

namespace attnlab::cli {

namespace {

// The environment first (started by the `attnlab` launcher it is already in
// place and nothing is re-executed); then the image that keeps running moves
// the program break to a huge-page boundary before glibc's malloc takes its
// first block from it.
void prepare_process(int argc, char** argv, char** envp) {
  reexec_with_process_env(argc, argv, envp);
  align_heap_to_huge_page();
}

// The executable's .preinit_array runs before any shared library's
// initialiser, so a first image never starts OpenBLAS (its constructor
// reads OPENBLAS_NUM_THREADS and starts its workers) nor our own static
// initialisers. `attnlab list`, hyperfine, 60 runs: 17.3 ms re-executing from
// main, 13.4 ms from here, 9.4 ms for one image that needs no re-exec.
// glibc passes (argc, argv, envp).
[[gnu::used, gnu::section(".preinit_array")]] void (*const prepare_first)(int, char**, char**) = &prepare_process;

}  // namespace

}  // namespace attnlab::cli
