#include "process_env.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "resources/malloc_tunables.hpp"

namespace attnlab::cli {

void reexec_with_process_env(char** argv) {
  if (std::getenv("ATTNLAB_NO_REEXEC") != nullptr) return;
  const char* threads = std::getenv("OPENBLAS_NUM_THREADS");
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string wanted = resources::malloc_tunables(tunables != nullptr ? tunables : "");
  const bool threads_set = threads != nullptr && std::strcmp(threads, "1") == 0;
  const bool tunables_set = tunables != nullptr && wanted == tunables;
  if (threads_set && tunables_set) return;  // the image re-executed, or a caller that set both
  // Overwrite, not add: a user's OPENBLAS_NUM_THREADS=8 would only start
  // workers attnlab never uses (every product runs on its caller's thread).
  if (setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0) return;
  if (setenv("GLIBC_TUNABLES", wanted.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Still here: the exec failed. The variables stay set, harmlessly.
}

}  // namespace attnlab::cli
