#include "process_env.hpp"

#include <alloca.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include "resources/malloc_tunables.hpp"

namespace attnlab::cli {

namespace {

bool is(const char* entry, std::string_view name) {
  return std::strncmp(entry, name.data(), name.size()) == 0 && entry[name.size()] == '=';
}

// The value of `name` in `envp` ("NAME=value" entries), or nullptr.
const char* lookup(char* const* envp, std::string_view name) {
  for (char* const* e = envp; *e != nullptr; ++e)
    if (is(*e, name)) return *e + name.size() + 1;
  return nullptr;
}

constexpr std::string_view kThreads = "OPENBLAS_NUM_THREADS";
constexpr std::string_view kTunables = "GLIBC_TUNABLES";

}  // namespace

std::size_t process_env_room(char* const* envp) {
  std::size_t n = 0;
  while (envp != nullptr && envp[n] != nullptr) ++n;
  return n + 3;
}

// No allocation in here (process_env.hpp).
char** process_env(char** envp, char** room) {
  if (envp == nullptr || lookup(envp, "ATTNLAB_NO_REEXEC") != nullptr) return nullptr;
  const char* threads = lookup(envp, kThreads);
  const char* tunables = lookup(envp, kTunables);
  // "GLIBC_TUNABLES=" and the value; a value too long for it leaves glibc's default malloc.
  static char tunables_entry[8192] = "GLIBC_TUNABLES=";
  const std::size_t prefix = kTunables.size() + 1;
  const auto wanted = resources::malloc_tunables(tunables != nullptr ? tunables : "",
                                                 std::span<char>(tunables_entry + prefix, sizeof tunables_entry - prefix - 1));
  const bool threads_set = threads != nullptr && std::strcmp(threads, "1") == 0;
  const bool tunables_set = wanted && tunables != nullptr && *wanted == tunables;
  if (threads_set && (tunables_set || !wanted)) return nullptr;
  // Overwrite, not add: a user's OPENBLAS_NUM_THREADS=8 would only start
  // workers attnlab never uses (every product runs on its caller's thread).
  std::size_t k = 0;
  for (char** e = envp; *e != nullptr; ++e)
    if (!is(*e, kThreads) && (!wanted || !is(*e, kTunables))) room[k++] = *e;
  static char threads_entry[] = "OPENBLAS_NUM_THREADS=1";
  room[k++] = threads_entry;
  if (wanted) {
    tunables_entry[prefix + wanted->size()] = '\0';
    room[k++] = tunables_entry;
  }
  room[k] = nullptr;
  return room;
}

void reexec_with_process_env(int /*argc*/, char** argv, char** envp) {
  char** room = static_cast<char**>(alloca(process_env_room(envp) * sizeof(char*)));
  char** env = process_env(envp, room);
  if (env == nullptr) return;
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

}  // namespace attnlab::cli
