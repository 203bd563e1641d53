// What attnlab's program sets before any library loads, and why: the whole
// story of its start-up, in this folder.
//
// Two settings only take effect as a program loads:
// - OPENBLAS_NUM_THREADS=1 and OPENBLAS_CORETYPE (tensor/openblas.hpp): read
//   by OpenBLAS's initialiser. attnlab loads OpenBLAS itself, on its first
//   product, so these need only be in the environment by then; putting them
//   there at start-up, while the process has one thread, spares that load a
//   setenv among running threads.
// - GLIBC_TUNABLES (malloc_tunables.hpp): read by the dynamic loader, before
//   any code of ours runs; it puts a run's buffers on transparent huge pages.
// So the program, started without them, re-executes itself once with them
// (process_env.hpp), from its .preinit_array (preinit.cpp): before any
// library's initialiser and before our own static constructors, so the first
// image costs only its loading, which is small since OpenBLAS is not among
// the libraries it loads. Then, in the image that runs, the program break
// moves to a huge-page boundary (heap_start.hpp) before malloc's first block.
//
// One binary, one mechanism: `attnlab` is the file a user runs, installs,
// starts under gdb or valgrind (ATTNLAB_NO_REEXEC=1 skips the re-exec; the
// run is the same bytes, with glibc's default malloc), and submits to Slurm.
// docs/speed.md has what each part is measured to save.
#pragma once

namespace attnlab::startup {

/// Everything above, in order: re-execute with process_env() when that is
/// not already the environment, then align the heap. Registered in the
/// executable's .preinit_array by preinit.cpp; glibc passes (argc, argv,
/// envp). Allocates nothing, needs no constructor, never fails (a failed exec
/// leaves the run in this image with glibc's defaults).
void prepare_process(int argc, char** argv, char** envp);

}  // namespace attnlab::startup
