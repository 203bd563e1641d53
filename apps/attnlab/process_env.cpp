#include "process_env.hpp"

#include <alloca.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include "heap_start.hpp"
#include "resources/malloc_tunables.hpp"

namespace attnlab::cli {

namespace {

bool is(const char* entry, std::string_view name) {
  return std::strncmp(entry, name.data(), name.size()) == 0 && entry[name.size()] == '=';
}

// The value of `name` in `envp` ("NAME=value" entries), or nullptr.
const char* lookup(char** envp, std::string_view name) {
  for (char** e = envp; *e != nullptr; ++e)
    if (is(*e, name)) return *e + name.size() + 1;
  return nullptr;
}

constexpr std::string_view kThreads = "OPENBLAS_NUM_THREADS";
constexpr std::string_view kTunables = "GLIBC_TUNABLES";

}  // namespace

// No allocation in here: an LD_PRELOAD'ed malloc may read its own settings
// on its first call, and `environ` is not set yet (process_env.hpp).
void reexec_with_process_env(int /*argc*/, char** argv, char** envp) {
  if (envp == nullptr || lookup(envp, "ATTNLAB_NO_REEXEC") != nullptr) return;
  const char* threads = lookup(envp, kThreads);
  const char* tunables = lookup(envp, kTunables);
  // "GLIBC_TUNABLES=" and the value; a value too long for it (glibc's own
  // items are a few dozen bytes each) leaves glibc's default malloc.
  static char tunables_entry[8192] = "GLIBC_TUNABLES=";
  const std::size_t prefix = kTunables.size() + 1;
  const auto wanted = resources::malloc_tunables(tunables != nullptr ? tunables : "",
                                                 std::span<char>(tunables_entry + prefix, sizeof tunables_entry - prefix - 1));
  const bool threads_set = threads != nullptr && std::strcmp(threads, "1") == 0;
  const bool tunables_set = wanted && tunables != nullptr && *wanted == tunables;
  if (threads_set && (tunables_set || !wanted)) return;  // the image re-executed, or a caller that set both
  // Overwrite, not add: a user's OPENBLAS_NUM_THREADS=8 would only start
  // workers attnlab never uses (every product runs on its caller's thread).
  std::size_t n = 0;
  while (envp[n] != nullptr) ++n;
  char** env = static_cast<char**>(alloca((n + 3) * sizeof(char*)));
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!is(envp[i], kThreads) && (!wanted || !is(envp[i], kTunables))) env[k++] = envp[i];
  static char threads_entry[] = "OPENBLAS_NUM_THREADS=1";
  env[k++] = threads_entry;
  if (wanted) {
    tunables_entry[prefix + wanted->size()] = '\0';
    env[k++] = tunables_entry;
  }
  env[k] = nullptr;
  // By the path /proc/self/exe links to, so the process keeps its name: the
  // kernel names it after the file exec'd, and `ps`, `top`, `pgrep attnlab`
  // and `killall attnlab` would otherwise see "exe". That path no longer
  // holds this image when the file was replaced since ("... (deleted)"):
  // then /proc/self/exe, the image itself.
  static char self[4096];
  const ssize_t n_self = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n_self > 0) {
    self[n_self] = '\0';
    execve(self, argv, env);
  }
  execve("/proc/self/exe", argv, env);
  // Still here: both execs failed; the run goes on in this image.
}

namespace {

// The image that keeps running then moves the program break to a huge-page
// boundary before glibc's malloc takes its first block from it.
void prepare_process(int argc, char** argv, char** envp) {
  reexec_with_process_env(argc, argv, envp);
  align_heap_to_huge_page();
}

// The executable's .preinit_array runs before any shared library's
// initialiser, so the first image never starts OpenBLAS (its constructor
// reads OPENBLAS_NUM_THREADS and starts its workers) nor our own static
// initialisers. `attnlab list`, hyperfine, 60 runs: 17.3 ms re-executing from
// main, 13.4 ms from here, 9.4 ms for one image that needs no re-exec.
// glibc passes (argc, argv, envp).
[[gnu::used, gnu::section(".preinit_array")]] void (*const prepare_first)(int, char**, char**) = &prepare_process;

}  // namespace

}  // namespace attnlab::cli
