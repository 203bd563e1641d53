#pragma once

namespace attnlab::cli {

/// Makes sure the pthread OpenBLAS this binary links runs no worker threads.
///
/// OpenBLAS reads OPENBLAS_NUM_THREADS once, as it loads (before main), and
/// starts that many minus one workers; attnlab pins every product to one BLAS
/// thread and parallelises rows itself, so the workers never run a product,
/// yet under `ulimit -v` one of them retries its 128 MiB buffer allocation for
/// ever and exit() waits for it (issue 9: `attnlab --version` never returned
/// under `ulimit -v 150000`). When the variable is not "1", this sets it and
/// re-executes /proc/self/exe with the same arguments; exec ends every thread
/// the first image started. If the exec fails (no /proc), it returns and the
/// run goes on with idle workers, as before.
///
/// Call first thing in main. Does nothing when ATTNLAB_NO_REEXEC is set
/// (for debuggers that should not follow an exec).
void reexec_without_blas_threads(char** argv);

}  // namespace attnlab::cli
