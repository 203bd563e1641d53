#include "startup/process_env.hpp"

#include <alloca.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include "startup/malloc_tunables.hpp"

namespace attnlab::startup {

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
constexpr std::string_view kCore = "OPENBLAS_CORETYPE";
constexpr std::string_view kTunables = "GLIBC_TUNABLES";

// "NAME=value" into `out` (size bytes); false when it does not fit.
bool entry(char* out, std::size_t size, std::string_view name, const char* value) {
  const std::size_t n = std::strlen(value);
  if (name.size() + 1 + n + 1 > size) return false;
  std::memcpy(out, name.data(), name.size());
  out[name.size()] = '=';
  std::memcpy(out + name.size() + 1, value, n + 1);
  return true;
}

// The kernels OpenBLAS should load with, as tensor/openblas.cpp chooses them;
// nullptr: OpenBLAS's own choice. __builtin_cpu_init first: no constructor has
// run yet.
const char* wanted_core(char* const* envp) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return nullptr;
  const char* asked = lookup(envp, "ATTNLAB_BLAS_CORETYPE");
  return asked != nullptr && *asked != '\0' ? asked : "Haswell";
}

}  // namespace

std::size_t process_env_room(char* const* envp) {
  std::size_t n = 0;
  while (envp != nullptr && envp[n] != nullptr) ++n;
  return n + 4;
}

// No allocation in here (process_env.hpp).
char** process_env(char** envp, char** room) {
  if (envp == nullptr || lookup(envp, "ATTNLAB_NO_REEXEC") != nullptr) return nullptr;
  const char* threads = lookup(envp, kThreads);
  const char* core = lookup(envp, kCore);
  const char* tunables = lookup(envp, kTunables);
  const char* core_wanted = wanted_core(envp);
  static char core_entry[256];
  const bool core_fits = core_wanted != nullptr && entry(core_entry, sizeof core_entry, kCore, core_wanted);
  // "GLIBC_TUNABLES=" and the value; a value too long for it leaves glibc's default malloc.
  static char tunables_entry[8192] = "GLIBC_TUNABLES=";
  const std::size_t prefix = kTunables.size() + 1;
  const auto wanted = malloc_tunables(tunables != nullptr ? tunables : "",
                                      std::span<char>(tunables_entry + prefix, sizeof tunables_entry - prefix - 1));
  const bool threads_set = threads != nullptr && std::strcmp(threads, "1") == 0;
  const bool core_set = !core_fits || (core != nullptr && std::strcmp(core, core_wanted) == 0);
  const bool tunables_set = !wanted || (tunables != nullptr && *wanted == tunables);
  if (threads_set && core_set && tunables_set) return nullptr;
  std::size_t k = 0;
  for (char** e = envp; *e != nullptr; ++e)
    if (!is(*e, kThreads) && (!core_fits || !is(*e, kCore)) && (!wanted || !is(*e, kTunables))) room[k++] = *e;
  static char threads_entry[] = "OPENBLAS_NUM_THREADS=1";
  room[k++] = threads_entry;
  if (core_fits) room[k++] = core_entry;
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

}  // namespace attnlab::startup
