// OpenBLAS, loaded when the first product needs it, with the kernels and the
// thread count that attnlab's digits depend on.
//
// Why loaded on demand (dlopen), not linked: OpenBLAS's own initialiser runs
// as it loads, starts its worker threads (one fewer than the cores, unless
// OPENBLAS_NUM_THREADS says 1) and picks its kernels for the CPU it finds. A
// worker started under `ulimit -v` retries its 128 MiB buffer for ever, and
// exit() waits for it; and the kernels' choice decides a product's last bits.
// Loaded here, the load happens with both settled: OPENBLAS_NUM_THREADS=1 and
// OPENBLAS_CORETYPE=Haswell in the environment (attnlab's own start-up,
// startup/startup.hpp, puts them there; a program on the library gets them
// set here, for the load, before its first product). A run that multiplies
// nothing (most of the course's small tables) never maps OpenBLAS at all, and
// starting attnlab costs no relocation of its 13,922 symbol references.
//
// Which kernels: Debian's OpenBLAS is built with DYNAMIC_ARCH and would pick
// Haswell's AVX2 code, Zen's, or SkylakeX's AVX-512 code by the CPU, each
// summing a product's terms in its own order, so trained tables' last digits
// would depend on the machine. "Haswell" (AVX2 + FMA) runs unchanged on every
// x86-64-v3 CPU, AVX-512 ones included, matching the -march=x86-64-v3 the code
// is compiled for. Which library: the pthread build (libopenblas0-pthread),
// by its path: Debian's serial build takes no lock around concurrent calls,
// and attnlab calls sgemm from a thread per row (`bottleneck -j 2` printed
// other digits than `-j 1` under it).
#pragma once

#include <string>

namespace attnlab::tensor {

/// The entry points attnlab uses, resolved from the loaded library.
struct OpenBlas {
  // cblas_sgemm / cblas_dgemm (the CBLAS interface; enums passed as their int values)
  void (*sgemm)(int order, int trans_a, int trans_b, int M, int N, int K, float alpha, const float* A, int lda,
                const float* B, int ldb, float beta, float* C, int ldc) = nullptr;
  void (*dgemm)(int order, int trans_a, int trans_b, int M, int N, int K, double alpha, const double* A, int lda,
                const double* B, int ldb, double beta, double* C, int ldc) = nullptr;
  void (*set_num_threads)(int n) = nullptr;  // openblas_set_num_threads
  std::string core;                          // openblas_get_corename(): "Haswell"
  std::string path;                          // the file loaded
};

/// The library, loaded by the first call from ATTNLAB_OPENBLAS_LIBRARY (the
/// pthread build's libopenblas.so.0, found when attnlab was configured) with
/// OPENBLAS_NUM_THREADS=1 and OPENBLAS_CORETYPE=Haswell — or the core named by
/// ATTNLAB_BLAS_CORETYPE (e.g. SkylakeX: faster on AVX-512 machines, other
/// trained digits than data/chapter.txt) — in the environment, which it sets
/// when they differ (setenv is not thread-safe: a multithreaded program on the
/// library calls this once before starting threads, or sets both itself). On a
/// CPU without AVX2 and FMA the core is OpenBLAS's own choice. Later calls
/// return the same object. Throws std::runtime_error naming the file and the
/// loader's reason (a missing libopenblas0-pthread, an address-space limit too
/// small to map it) — every call, since nothing was loaded.
const OpenBlas& openblas();

/// openblas().core, or "not loaded: <reason>" when it cannot load; never
/// throws (for `attnlab --version`).
std::string blas_core();

}  // namespace attnlab::tensor
