// The environment attnlab's program runs in (startup/startup.hpp): its glibc
// malloc settings put a training run's buffers on transparent huge pages, so
// the run takes far fewer page faults and prints the same bytes; the re-exec
// that sets them keeps the process's name; OpenBLAS loads only when a product
// needs it, once, with its settings.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_binary.hpp"

namespace attnlab::testing {
namespace {

const std::string kSpecs = ATTNLAB_EXPERIMENTS_DIR;

// Minor page faults of everything the shell command below ran (the shell and
// attnlab both, each waited for).
struct Faulted {
  Outcome o;
  long faults = 0;
};

Faulted counted(const std::string& before, const std::string& args, const ScratchDir& dir) {
  rusage start{}, end{};
  getrusage(RUSAGE_CHILDREN, &start);
  Faulted f{run_attnlab(args, dir, "", before), 0};
  getrusage(RUSAGE_CHILDREN, &end);
  f.faults = end.ru_minflt - start.ru_minflt;
  return f;
}

std::string thp_setting() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  return line;  // e.g. "always [madvise] never"
}

TEST(ProcessEnv, MallocSettingsCutAPositionsRunsPageFaultsAndNotItsBytes) {
#ifdef ATTNLAB_SANITIZED_BUILD
  GTEST_SKIP() << "a sanitizer's own malloc ignores glibc's settings";
#endif
  const std::string thp = thp_setting();
  if (thp.empty() || thp.find("[never]") != std::string::npos)
    GTEST_SKIP() << "transparent huge pages are off here (" << thp << "): the settings change nothing";
  ScratchDir dir("process_env");
  const std::string args = "run " + kSpecs + "/positions.json --set epochs=2 -j 2";
  // Without the re-exec: glibc's default malloc (OPENBLAS_NUM_THREADS=1 as the re-exec would set it).
  const Faulted plain = counted("ATTNLAB_NO_REEXEC=1 OPENBLAS_NUM_THREADS=1 GLIBC_TUNABLES= ", args, dir);
  const Faulted tuned = counted("env -u GLIBC_TUNABLES ", args, dir);
  ASSERT_EQ(plain.o.exit_code, 0) << plain.o.err;
  ASSERT_EQ(tuned.o.exit_code, 0) << tuned.o.err;
  EXPECT_EQ(tuned.o.out, plain.o.out);
  EXPECT_NE(tuned.o.out.find("with positions"), std::string::npos) << tuned.o.out;
  // Measured 5,100 against 1,000 to 1,200 (two models' 17 MiB of buffers in
  // 4 KiB pages, or in a few 2 MiB ones). Half leaves room for a kernel that
  // finds fewer free huge pages.
  EXPECT_LT(tuned.faults * 2, plain.faults) << "with the settings " << tuned.faults << ", without " << plain.faults;
}

TEST(ProcessEnv, TheHeapStartsOnAHugePage) {
#ifdef ATTNLAB_SANITIZED_BUILD
  GTEST_SKIP() << "a sanitizer's own malloc does not take its blocks from the program break";
#endif
  const std::string thp = thp_setting();
  if (thp.empty() || thp.find("[never]") != std::string::npos)
    GTEST_SKIP() << "transparent huge pages are off here (" << thp << "): the heap is in 4 KiB pages either way";
  // startup/heap_start.cpp moves the program break to a 2 MiB boundary
  // before malloc starts, so a training run's first buffers land on a huge
  // page. A one-epoch run then faults about as often as `attnlab list` (the
  // loading of both images): measured 530-536 against 466-502; with the
  // break where the kernel put it, 1,067-1,428, as the heap's first 0-2 MiB
  // were touched 4 KiB at a time (and never fewer than 570 more than list).
  ScratchDir dir("heap_start");
  const Faulted list = counted("", "list", dir);
  const Faulted run = counted("", "run " + kSpecs + "/attention_map.json --set epochs=1", dir);
  ASSERT_EQ(list.o.exit_code, 0) << list.o.err;
  ASSERT_EQ(run.o.exit_code, 0) << run.o.err;
  EXPECT_NE(run.o.out.find("accuracy"), std::string::npos) << run.o.out;
  EXPECT_LT(run.faults - list.faults, 300) << "run " << run.faults << ", list " << list.faults;
}

// The name (/proc/PID/comm) of `binary list` when it has exited, started with `env`.
std::string exited_process_name(const std::string& binary, char** env) {
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  std::string path = binary, list = "list";
  char* argv[] = {path.data(), list.data(), nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, path.c_str(), &quiet, nullptr, argv, env), 0);
  posix_spawn_file_actions_destroy(&quiet);
  if (pid <= 0) return "";
  // Wait for its exit without reaping it: a zombie keeps its name.
  siginfo_t info{};
  EXPECT_EQ(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0);
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << binary;
  return name;
}

TEST(ProcessEnv, TheReexecKeepsTheProcessName) {
  // The kernel names a process after the file it exec'd (/proc/PID/comm, 15
  // characters at most), and `ps`, `top`, `pgrep attnlab` and `killall
  // attnlab` go by that name: a re-exec of /proc/self/exe would make it "exe".
  // Started with its environment there is no re-exec; without it, the
  // re-exec keeps the name.
  const std::string expected = std::filesystem::path(ATTNLAB_BINARY).filename().string().substr(0, 15);
  EXPECT_EQ(exited_process_name(ATTNLAB_BINARY, environ), expected);
  std::vector<char*> bare;  // this environment without the three the re-exec sets
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("OPENBLAS_NUM_THREADS=", 0) != 0 && entry.rfind("OPENBLAS_CORETYPE=", 0) != 0 &&
        entry.rfind("GLIBC_TUNABLES=", 0) != 0)
      bare.push_back(*e);
  }
  bare.push_back(nullptr);
  EXPECT_EQ(exited_process_name(ATTNLAB_BINARY, bare.data()), expected);
}

// How often the dynamic loader mapped OpenBLAS in a run (LD_DEBUG=files names
// each library it maps, in every image of the process).
int openblas_loads(const std::string& args, const ScratchDir& dir, Outcome* out = nullptr) {
  const Outcome o = run_attnlab(args, dir, "", "env -u OPENBLAS_NUM_THREADS -u OPENBLAS_CORETYPE LD_DEBUG=files ");
  if (out) *out = o;
  int n = 0;  // lines "PID: file=.../libopenblas.so.0 [0];  generating link map": one per mapping
  std::istringstream lines(o.err);
  for (std::string line; std::getline(lines, line);)
    if (line.find("libopenblas") != std::string::npos && line.find("generating link map") != std::string::npos) ++n;
  return n;
}

TEST(ProcessEnv, OpenBlasLoadsOnlyForAProductAndOnlyOnce) {
#ifdef ATTNLAB_SANITIZED_BUILD
  GTEST_SKIP() << "the sanitizers' runtimes change what the loader maps";
#endif
  // Linked, OpenBLAS was mapped and relocated in both images of every run
  // (13,922 symbol references); loaded by tensor/openblas.cpp, a run that
  // multiplies nothing never maps it, and one that does maps it once, in the
  // image that runs, with one thread and the Haswell kernels.
  ScratchDir dir("openblas_load");
  Outcome list, version;
  EXPECT_EQ(openblas_loads("list", dir, &list), 0) << list.err.substr(0, 2000);
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_EQ(openblas_loads("--version", dir, &version), 1) << version.err.substr(0, 4000);
  EXPECT_NE(version.out.find("OpenBLAS kernels Haswell"), std::string::npos) << version.out;
}

}  // namespace
}  // namespace attnlab::testing
