// Beyond one machine, on the real engines: the commands GNU parallel runs,
// and a Slurm job array submitted to the one-node cluster that
// scripts/slurm_one_node.sh starts (CI starts it before the tests). Where
// the engine is absent the test says so and skips.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

#include "sweep_binary.hpp"

namespace attnlab::testing {
namespace {

using nlohmann::json;

const std::string kSqrtD = kSpecs + "/sqrt_d.json";

// CI (.ci/run) sets ATTNLAB_REQUIRE_ENGINES=1: there a missing engine is a
// failure, so the Slurm and GNU parallel tests cannot pass by skipping.
bool engines_required() {
  const char* v = std::getenv("ATTNLAB_REQUIRE_ENGINES");
  return v && std::string(v) == "1";
}
#define SKIP_OR_FAIL(why)                                                              \
  do {                                                                                 \
    if (engines_required()) FAIL() << why << " (ATTNLAB_REQUIRE_ENGINES=1)";           \
    GTEST_SKIP() << why;                                                               \
  } while (0)

// The result of every run folder: all there, all ok, run on this host.
void expect_all_ok(const fs::path& runs, std::size_t n) {
  const auto folders = run_folders(runs);
  ASSERT_EQ(folders.size(), n);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  for (const auto& f : folders) {
    ASSERT_TRUE(fs::exists(f / "result.json")) << f;
    const json r = read_json(f / "result.json");
    EXPECT_EQ(r["status"], "ok") << f;
    EXPECT_EQ(r["run"], f.filename().string());
    EXPECT_EQ(r["host"], host);
    EXPECT_EQ(r["table"]["rows"].size(), 3u) << f;  // sqrt_d's widths 8, 64, 512
  }
}

TEST(CommandsLauncher, PrintsOneSelfContainedCommandPerPendingRun) {
  ScratchDir dir("launcher_commands");
  const std::string cmd = "sweep " + kSqrtD + " seed=0,1,2 --dir runs";
  const Outcome o = run_attnlab(cmd + " --launcher commands", dir, dir.path.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto lines = lines_of(o.out);
  ASSERT_EQ(lines.size(), 3u) << o.out;
  const auto folders = run_folders(dir.path / "runs");
  ASSERT_EQ(folders.size(), 3u);
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("'" + fs::canonical(ATTNLAB_BINARY).string() + "' run-one '" + (dir.path / "runs").string() + "/"),
              0u)
        << l;
  }
  // Each line runs from anywhere: here, from /, through the shell.
  ASSERT_EQ(std::system(("cd / && " + lines[1]).c_str()), 0);
  EXPECT_EQ(lines_of(run_attnlab(cmd + " --plan", dir, dir.path.string()).out).back(),
            "3 runs: 1 done, 0 failed, 2 to run");
  // Printed again, only the pending ones.
  EXPECT_EQ(lines_of(run_attnlab(cmd + " --launcher commands", dir, dir.path.string()).out).size(), 2u);
}

bool gnu_parallel() {
  return std::system("parallel --version 2>/dev/null | grep -q 'GNU parallel'") == 0;
}

TEST(CommandsLauncher, GnuParallelRunsThemAndTheSweepCollects) {
  if (!gnu_parallel()) SKIP_OR_FAIL("GNU parallel is not installed (Debian: apt-get install parallel)");
  ScratchDir dir("launcher_parallel");
  const std::string cmd = "sweep " + kSqrtD + " seed=0,1,2,3 --dir runs";
  // --will-cite: parallel otherwise asks for a citation on a terminal's first use.
  const Outcome ran = run_attnlab(cmd + " --launcher commands | parallel --will-cite -j 2", dir, dir.path.string());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  expect_all_ok(dir.path / "runs", 4);
  const Outcome collected = run_attnlab(cmd, dir, dir.path.string());
  ASSERT_EQ(collected.exit_code, 0) << collected.err;
  EXPECT_NE(collected.err.find("every run is done; nothing to run"), std::string::npos) << collected.err;
  const auto lines = lines_of(collected.out);
  ASSERT_EQ(lines.size(), 4u) << collected.out;
  EXPECT_EQ(lines[0].substr(0, 5), "width");
  EXPECT_EQ(lines[3].substr(lines[3].size() - 3), "  4");
  // The same table as a local sweep of the same runs.
  const Outcome local = run_attnlab(cmd + "_local", dir, dir.path.string());
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(local.out, collected.out);
}

TEST(SlurmLauncher, DryRunWritesTheJobArrayWithoutSubmitting) {
  ScratchDir dir("launcher_slurm_dry");
  const Outcome o = run_attnlab("sweep " + kSqrtD +
                                    " seed=0,1,2 --dir runs --launcher slurm --dry-run -j 2 --slurm-option partition=debug "
                                    "--slurm-option=--time=0:10:00",
                                dir, dir.path.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const fs::path script = dir.path / "runs" / "slurm" / "array.sbatch";
  EXPECT_EQ(o.out, "'" + fs::path(o.out.substr(1, o.out.find('\'', 1) - 1)).string() + "' '--parsable' '" +
                       script.string() + "'\n");
  const std::string s = slurp(script);
  EXPECT_EQ(s.find("#!/bin/bash\n"), 0u);
  for (const std::string& want : std::vector<std::string>{"#SBATCH --array=0-2%2\n", "#SBATCH --cpus-per-task=1\n",
        "#SBATCH --output=" + (dir.path / "runs" / "slurm").string() + "/%A_%a.out\n", "#SBATCH --partition=debug\n",
        "#SBATCH --time=0:10:00\n", "#SBATCH --job-name=attnlab-sqrt_d\n",
        " run-one \"${runs[$(( ${ATTNLAB_ARRAY_OFFSET:-0} + SLURM_ARRAY_TASK_ID ))]}\"\n"})
    EXPECT_NE(s.find(want), std::string::npos) << want << "\n" << s;
  for (const auto& f : run_folders(dir.path / "runs")) {
    EXPECT_NE(s.find("  '" + f.string() + "'\n"), std::string::npos) << f;
    EXPECT_FALSE(fs::exists(f / "result.json"));
  }
  // The script itself runs a task, as Slurm would (SLURM_ARRAY_TASK_ID=1).
  ASSERT_EQ(std::system(("SLURM_ARRAY_TASK_ID=1 bash '" + script.string() + "'").c_str()), 0);
  EXPECT_EQ(lines_of(run_attnlab("sweep " + kSqrtD + " seed=0,1,2 --dir runs --plan", dir, dir.path.string()).out).back(),
            "3 runs: 1 done, 0 failed, 2 to run");
}

TEST(SlurmLauncher, RefusesOptionsItSetsItselfAndSlurmFlagsWithoutIt) {
  ScratchDir dir("launcher_slurm_refused");
  const Outcome array = run_attnlab("sweep " + kSqrtD + " seed=0,1 --launcher slurm --slurm-option array=0-9", dir,
                                    dir.path.string());
  EXPECT_EQ(array.exit_code, 2);
  EXPECT_NE(array.err.find("'array=0-9' is set by the launcher itself"), std::string::npos) << array.err;
  const Outcome wait = run_attnlab("sweep " + kSqrtD + " seed=0,1 --wait", dir, dir.path.string());
  EXPECT_EQ(wait.exit_code, 2);
  EXPECT_NE(wait.err.find("--wait: only with --launcher slurm"), std::string::npos) << wait.err;
  EXPECT_FALSE(fs::exists(dir.path / "runs"));
}

// The cluster's slurm.conf: $SLURM_CONF, else where scripts/slurm_one_node.sh keeps it.
std::string slurm_conf() {
  if (const char* c = std::getenv("SLURM_CONF")) return c;
  const char* d = std::getenv("ATTNLAB_SLURM_DIR");
  return std::string(d ? d : "/tmp/attnlab-slurm") + "/slurm.conf";
}

bool cluster_answers(const std::string& conf) {
  if (std::system("command -v sbatch >/dev/null 2>&1") != 0 || !fs::exists(conf)) return false;
  return std::system(("SLURM_CONF='" + conf + "' timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE 'idle|mixed|alloc'")
                         .c_str()) == 0;
}

TEST(SlurmLauncher, AJobArrayOnARealClusterRunsEverySweepRun) {
  const std::string conf = slurm_conf();
  if (!cluster_answers(conf))
    SKIP_OR_FAIL("no Slurm cluster answers (sinfo with SLURM_CONF=" + conf +
                 "); start one with scripts/slurm_one_node.sh start");
  ScratchDir dir("launcher_slurm");
  const std::string cmd = "sweep " + kSqrtD + " seed=0,1,2 --dir runs";
  ::setenv("SLURM_CONF", conf.c_str(), 1);  // for sbatch and squeue, as a user's login sets it
  const Outcome o = run_attnlab(cmd + " --launcher slurm -j 2 --wait", dir, dir.path.string());
  std::cout << "--- stderr of the Slurm sweep ---\n" << o.err << "--- its stdout ---\n" << o.out;
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("submitted job array "), std::string::npos);
  expect_all_ok(dir.path / "runs", 3);
  const auto lines = lines_of(o.out);
  ASSERT_EQ(lines.size(), 4u) << o.out;
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(lines[i].substr(lines[i].size() - 3), "  3") << lines[i];
  // Slurm's own output files, one per task, under the sweep's slurm/ folder.
  std::size_t outs = 0;
  for (const auto& e : fs::directory_iterator(dir.path / "runs" / "slurm")) outs += e.path().extension() == ".out";
  EXPECT_EQ(outs, 3u);
  // The same table as a local sweep of the same runs.
  const Outcome local = run_attnlab(cmd + "_local", dir, dir.path.string());
  EXPECT_EQ(local.out, o.out);
}

}  // namespace
}  // namespace attnlab::testing
