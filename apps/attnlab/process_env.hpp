#pragma once

namespace attnlab::cli {

/// Makes sure attnlab runs with the process environment it needs, which only
/// takes effect as the program loads: OPENBLAS_NUM_THREADS=1 and the glibc
/// malloc settings of resources::malloc_tunables. When either is missing it
/// sets them and re-executes itself with the same arguments, by the path
/// /proc/self/exe links to (so the process keeps its name, "attnlab", for
/// ps, pgrep and killall), or by /proc/self/exe when that path fails; exec
/// ends every thread the first image started.
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
/// If the exec fails (no /proc), it returns and the run goes on as before,
/// with idle workers and glibc's default malloc. Does nothing when
/// ATTNLAB_NO_REEXEC is set (for debuggers and valgrind, which should not
/// follow an exec).
///
/// Not called from main: process_env.cpp registers it in the executable's
/// .preinit_array, which glibc runs with (argc, argv, envp) before any shared
/// library's initialiser, so the first image costs only its loading. It reads
/// `envp` (glibc has not set `environ` yet) and must not use anything that
/// needs a constructor.
void reexec_with_process_env(int argc, char** argv, char** envp);

}  // namespace attnlab::cli
