#include "tensor/blas_core.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "tensor/gemm.hpp"

namespace attnlab::tensor {

namespace {

// OpenBLAS's DYNAMIC_ARCH entry points (driver/others/dynamic.c, exported by
// Debian's pthread and serial builds alike): _quit forgets the chosen kernel
// table, _init picks one again, reading OPENBLAS_CORETYPE. Looked up at run
// time so that linking another BLAS still works (without the pinning).
using Hook = void (*)();
using Name = char* (*)();

std::string select_core() {
  const auto quit = reinterpret_cast<Hook>(::dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
  const auto init = reinterpret_cast<Hook>(::dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
  const auto name = reinterpret_cast<Name>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const bool can_run_haswell = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (quit && init && can_run_haswell) {
    const char* asked = std::getenv("ATTNLAB_BLAS_CORETYPE");
    ::setenv("OPENBLAS_CORETYPE", asked && *asked ? asked : "Haswell", 1);
    quit();
    init();
  }
  // One OpenBLAS thread per product, for every program on the library, not
  // only the CLI: OpenBLAS splits a threaded product by its own thread count,
  // which moves last bits from one machine to the next, and attnlab splits
  // products between its own threads at cuts that do not (row_share.hpp).
  set_blas_threads(1);
  if (!name) return "unknown (not a DYNAMIC_ARCH OpenBLAS)";
  return name();
}

// At load time, while the process has one thread (setenv is not
// thread-safe), and after OpenBLAS's own constructor: a shared library the
// executable needs is initialised before the executable's constructors.
__attribute__((constructor)) void select_core_at_load() { blas_core(); }

}  // namespace

const std::string& blas_core() {
  static const std::string core = select_core();
  return core;
}

}  // namespace attnlab::tensor
