// The environment attnlab's program runs in, put in place before anything
// loads (startup.hpp tells the whole story).
#pragma once

#include <cstddef>

namespace attnlab::startup {

/// What the program needs in its environment, each of which only takes
/// effect as something loads:
/// - OPENBLAS_NUM_THREADS=1: OpenBLAS reads it as it loads and starts that
///   many minus one workers; attnlab pins every product to one BLAS thread and
///   parallelises rows itself, so workers never run a product, yet under
///   `ulimit -v` one of them retries its 128 MiB buffer for ever and exit()
///   waits for it (`attnlab --version` never returned under `ulimit -v
///   150000`). A user's own value is replaced: it would only start workers.
/// - OPENBLAS_CORETYPE: the kernels OpenBLAS loads with (tensor/openblas.hpp:
///   Haswell, or ATTNLAB_BLAS_CORETYPE's value; left alone on a CPU without
///   AVX2 and FMA).
/// - GLIBC_TUNABLES: glibc's malloc settings (malloc_tunables.hpp); a user's
///   own items are kept and win over ours.
/// None of this may allocate or need a constructor: it runs before any of
/// them, and an LD_PRELOAD'ed malloc may read its own settings on its first
/// call.

/// How many pointers process_env() may write into its `room`: envp's
/// entries, the three it sets and the terminating null.
std::size_t process_env_room(char* const* envp);

/// `envp` ("NAME=value" entries, null-terminated) with the three settings
/// above in place of any entries of those names, written into `room`
/// (process_env_room(envp) pointers; the entries point into envp's strings
/// and into static storage); nullptr when `envp` already is that environment
/// (an image that re-executed, or a caller that set all three), or when
/// ATTNLAB_NO_REEXEC is set (debuggers and valgrind). A GLIBC_TUNABLES too
/// long to extend (8 KiB; glibc's own items are a few dozen bytes each) is
/// left as it is. Call it once per process.
char** process_env(char** envp, char** room);

/// Re-executes the running program with process_env() when that is not
/// already its environment: by the path /proc/self/exe links to (so the
/// process keeps its name, "attnlab", for ps, pgrep and killall), or by
/// /proc/self/exe when that path fails. If the exec fails (no /proc), it
/// returns and the run goes on in this image: OpenBLAS then gets its two
/// settings by setenv as it loads (tensor/openblas.hpp), malloc glibc's
/// defaults. Reads `envp`, since glibc has not set `environ` yet.
void reexec_with_process_env(int argc, char** argv, char** envp);

}  // namespace attnlab::startup
