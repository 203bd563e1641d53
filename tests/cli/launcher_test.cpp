// The `attnlab` launcher (apps/launcher/launcher.cpp): it starts the program
// beside it, build/libexec/attnlab/attnlab, with the environment the program
// needs, so the program loads its libraries once instead of twice.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "cli/run_binary.hpp"

namespace attnlab::testing {
namespace {

namespace fs = std::filesystem;

// Minor page faults of the shell command run_binary runs (the shell and
// what it started).
long faults_of(const std::string& binary, const std::string& before, const ScratchDir& dir, Outcome& o) {
  rusage start{}, end{};
  getrusage(RUSAGE_CHILDREN, &start);
  o = run_binary(binary, "list", dir, "", before);
  getrusage(RUSAGE_CHILDREN, &end);
  return end.ru_minflt - start.ru_minflt;
}

TEST(Launcher, StartsTheProgramWithoutLoadingItTwice) {
#ifdef ATTNLAB_SANITIZED_BUILD
  GTEST_SKIP() << "not measured under the sanitizers' runtimes, which fault in their own shadow memory";
#endif
  // The program started without its environment loads its libraries, sees the
  // environment missing and re-executes itself (process_env.hpp); through the
  // launcher it has the environment from the start. `/usr/bin/time -f %R env
  // -u ... attnlab list`, 6 runs each: 541-546 faults for the program alone,
  // 412-420 through the launcher, 143 for `env true`: the program's first
  // image, stopped before its initialisers, cost about 180 (its libraries
  // mapped and relocated), the launcher about 20.
  ScratchDir dir("launcher_faults");
  Outcome alone, launched;
  long alone_faults = 1L << 40, launched_faults = 1L << 40;
  for (int i = 0; i < 3; ++i) {  // the fewest of three: another process's activity only adds faults
    alone_faults = std::min(alone_faults, faults_of(ATTNLAB_PROGRAM, "env -u OPENBLAS_NUM_THREADS -u GLIBC_TUNABLES ", dir, alone));
    launched_faults = std::min(launched_faults, faults_of(ATTNLAB_BINARY, "env -u OPENBLAS_NUM_THREADS -u GLIBC_TUNABLES ", dir, launched));
  }
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  ASSERT_EQ(launched.exit_code, 0) << launched.err;
  EXPECT_EQ(launched.out, alone.out);
  EXPECT_NE(launched.out.find("positions"), std::string::npos) << launched.out;
  EXPECT_LT(launched_faults + 80, alone_faults) << "through the launcher " << launched_faults << ", alone " << alone_faults;
}

TEST(Launcher, PassesArgumentsAndTheExitCodeThrough) {
  ScratchDir dir("launcher_args");
  const std::string spec = dir.write("a spec with spaces.json", R"({"experiment": "positions", "epoch": 3})");
  const Outcome o = run_attnlab("validate '" + spec + "'", dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("a spec with spaces.json"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("did you mean \"epochs\""), std::string::npos) << o.err;
}

TEST(Launcher, WithoutTheProgramBesideItSaysWhatIsMissing) {
  ScratchDir dir("launcher_alone");
  const fs::path copy = dir.path / "attnlab";
  fs::copy_file(ATTNLAB_BINARY, copy);
  fs::permissions(copy, fs::perms::owner_exec, fs::perm_options::add);
  const Outcome o = run_binary(copy.string(), "list", dir);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("cannot start the attnlab program " + (dir.path / "libexec/attnlab/attnlab").string() +
                       ": No such file or directory"),
            std::string::npos)
      << o.err;
}

}  // namespace
}  // namespace attnlab::testing
