#include "blas_env.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace attnlab::cli {

void reexec_without_blas_threads(char** argv) {
  const char* now = std::getenv("OPENBLAS_NUM_THREADS");
  if (now != nullptr && std::strcmp(now, "1") == 0) return;
  if (std::getenv("ATTNLAB_NO_REEXEC") != nullptr) return;
  // Overwrite, not add: a user's OPENBLAS_NUM_THREADS=8 would only start
  // workers attnlab never uses (every product runs on its caller's thread).
  if (setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Still here: the exec failed. The variable stays set, harmlessly.
}

}  // namespace attnlab::cli
