#pragma once

#include <cstddef>

namespace attnlab::cli {

/// The process environment attnlab's program needs, which only takes effect
/// as a program loads: OPENBLAS_NUM_THREADS=1 and the glibc malloc settings
/// of resources::malloc_tunables.
///
/// OPENBLAS_NUM_THREADS: OpenBLAS reads it once, as it loads (before main),
/// and starts that many minus one workers; attnlab pins every product to one
/// BLAS thread and parallelises rows itself, so the workers never run a
/// product, yet under `ulimit -v` one of them retries its 128 MiB buffer
/// allocation for ever and exit() waits for it (issue 9: `attnlab --version`
/// never returned under `ulimit -v 150000`).
///
/// GLIBC_TUNABLES: glibc reads it as it loads; a user's own items are kept
/// and win over ours (resources/malloc_tunables.hpp says what and why: the
/// buffers' first touch on huge pages, issue 15).
///
/// Two callers set it before the program loads: the `attnlab` launcher
/// (apps/launcher/launcher.cpp), which starts the program with it, and the
/// program itself when started some other way (reexec_with_process_env).
/// Neither may allocate nor use anything that needs a constructor: the
/// program's caller runs before any of them, and an LD_PRELOAD'ed malloc may
/// read its own settings on its first call.

/// How many pointers process_env() may write into its `room`: envp's
/// entries, the two it sets and the terminating null.
std::size_t process_env_room(char* const* envp);

/// `envp` ("NAME=value" entries, null-terminated) with OPENBLAS_NUM_THREADS=1
/// and GLIBC_TUNABLES=<ours> in place of any entries of those names, written
/// into `room` (process_env_room(envp) pointers; the entries point into
/// envp's strings and into static storage); nullptr when `envp` already is
/// that environment (an image that re-executed, the launcher's child, or a
/// caller that set both), or when ATTNLAB_NO_REEXEC is set (debuggers and
/// valgrind). A GLIBC_TUNABLES too long to extend (8 KiB; glibc's own items
/// are a few dozen bytes each) is left as it is. Call it once per process.
char** process_env(char** envp, char** room);

/// Re-executes the running program with process_env() when that is not
/// already its environment: by the path /proc/self/exe links to (so the
/// process keeps its name, "attnlab", for ps, pgrep and killall), or by
/// /proc/self/exe when that path fails; exec ends every thread the first
/// image started. If the exec fails (no /proc), it returns and the run goes
/// on as before, with idle workers and glibc's default malloc.
///
/// Not called from main: apps/attnlab/preinit.cpp registers it in the
/// executable's .preinit_array, which glibc runs with (argc, argv, envp)
/// before any shared library's initialiser, so the first image costs only
/// its loading. It reads `envp` (glibc has not set `environ` yet).
void reexec_with_process_env(int argc, char** argv, char** envp);

}  // namespace attnlab::cli
