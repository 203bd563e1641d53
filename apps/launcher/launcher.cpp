// `attnlab` as a user starts it: a launcher that sets the process
// environment the program needs (apps/attnlab/process_env.hpp:
// OPENBLAS_NUM_THREADS=1 and glibc's malloc settings, which only take effect
// as a program loads) and executes the program, libexec/attnlab/attnlab
// beside it, with the same arguments.
//
// Why a launcher: the program itself would have to load its libraries, see
// the environment missing and re-execute itself, loading them again (it
// still does that when started some other way). That first image is mostly
// the dynamic loader relocating OpenBLAS's 13,922 symbol references and
// touching their pages; this launcher links nothing but the C library
// (libstdc++ statically). `attnlab list`, hyperfine -N, 30 runs: 17.0 ms
// re-executing, 12.4 ms through the launcher; 541-546 page faults against
// 412-420 (tests/cli/launcher_test.cpp).
//
// The program keeps the name "attnlab" (the kernel names a process after
// the file it executes), so ps, pgrep attnlab and killall attnlab find it.
// Under valgrind, run the program itself (README, "Benchmarks").
#include <alloca.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "process_env.hpp"
#include "resources/program_layout.hpp"

namespace {

using attnlab::resources::kProgramBesideLauncher;

// `folder`/kProgramBesideLauncher into `out`; false when it does not fit.
bool join(char* out, std::size_t size, const char* folder, std::size_t folder_len) {
  if (folder_len + 1 + sizeof kProgramBesideLauncher > size) return false;
  std::memcpy(out, folder, folder_len);
  out[folder_len] = '/';
  std::memcpy(out + folder_len + 1, kProgramBesideLauncher, sizeof kProgramBesideLauncher);
  return true;
}

// The program's path: beside the launcher's own file, found by
// /proc/self/exe, or by argv[0] when that has a folder and /proc is missing.
bool program_path(char* out, std::size_t size, const char* argv0) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const char* path = self;
  std::size_t len = 0;
  if (n > 0) {
    len = static_cast<std::size_t>(n);
  } else if (argv0 != nullptr && std::strchr(argv0, '/') != nullptr) {
    path = argv0;
    len = std::strlen(argv0);
  } else {
    return false;
  }
  while (len > 0 && path[len - 1] != '/') --len;  // the folder, with its '/'
  if (len > 1) --len;                             // without it ("/" stays "/")
  return join(out, size, path, len);
}

}  // namespace

int main(int /*argc*/, char** argv, char** envp) {
  static char program[4096];
  if (!program_path(program, sizeof program, argv[0])) {
    std::fprintf(stderr, "attnlab: error: cannot find the attnlab program (%s beside this launcher): "
                         "/proc/self/exe is unreadable; run it by its path\n", kProgramBesideLauncher);
    return 1;
  }
  char** room = static_cast<char**>(alloca(attnlab::cli::process_env_room(envp) * sizeof(char*)));
  char** env = attnlab::cli::process_env(envp, room);
  execve(program, argv, env != nullptr ? env : envp);
  std::fprintf(stderr, "attnlab: error: cannot start the attnlab program %s: %s (rebuild: cmake --build build)\n",
               program, std::strerror(errno));
  return 1;
}
