// The Slurm launcher's pure parts: the #SBATCH options it accepts, the job
// array script, and the submissions of a sweep longer than one array.
#include <gtest/gtest.h>

#include "spec/spec_error.hpp"
#include "sweep/slurm_launcher.hpp"

namespace attnlab::sweep {
namespace {

TEST(SbatchOption, AddsTheDashesAndRefusesWhatTheLauncherSets) {
  EXPECT_EQ(sbatch_option("partition=debug"), "--partition=debug");
  EXPECT_EQ(sbatch_option("--time=2:00:00"), "--time=2:00:00");
  EXPECT_EQ(sbatch_option("-p debug"), "-p debug");
  EXPECT_EQ(sbatch_option("exclusive"), "--exclusive");
  for (const char* own : {"array=0-3", "--output=x", "error=y", "cpus-per-task=4", "-c 2", "-o x"})
    EXPECT_THROW(sbatch_option(own), spec::SpecError) << own;
  EXPECT_THROW(sbatch_option("time=1\n#SBATCH --array=0-9"), spec::SpecError);
}

TEST(ArrayScript, OneTaskPerRunAtMostLAtOnce) {
  SlurmOptions o;
  o.max_parallel = 2;
  o.attnlab = "/opt/attnlab bin/attnlab";  // a space: quoted for the shell
  o.options = {"partition=gpu"};
  const std::string s = array_script({"/r/a", "/r/it's"}, "/r/slurm", o, "a test");
  EXPECT_EQ(s,
            "#!/bin/bash\n"
            "# a test\n"
            "# Written by attnlab " ATTNLAB_VERSION ". Task i runs runs[ATTNLAB_ARRAY_OFFSET + i] with\n"
            "# `attnlab run-one`, which writes that folder's result.json whole or not at all.\n"
            "#SBATCH --job-name=attnlab\n"
            "#SBATCH --array=0-1%2\n"
            "#SBATCH --cpus-per-task=1\n"
            "#SBATCH --output=/r/slurm/%A_%a.out\n"
            "#SBATCH --partition=gpu\n"
            "set -euo pipefail\n"
            "runs=(\n"
            "  '/r/a'\n"
            "  '/r/it'\\''s'\n"
            ")\n"
            "exec '/opt/attnlab bin/attnlab' run-one \"${runs[$(( ${ATTNLAB_ARRAY_OFFSET:-0} + SLURM_ARRAY_TASK_ID ))]}\"\n");
}

TEST(SubmitCommands, MoreRunsThanOneArrayHoldsGoInSeveralArrays) {
  SlurmOptions o;
  o.max_parallel = 50;
  const auto one = submit_commands("/usr/bin/sbatch", 3, "/r/slurm/array.sbatch", o);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], (std::vector<std::string>{"/usr/bin/sbatch", "--parsable", "/r/slurm/array.sbatch"}));
  const auto many = submit_commands("/usr/bin/sbatch", 2500, "/r/slurm/array.sbatch", o);
  ASSERT_EQ(many.size(), 3u);
  EXPECT_EQ(many[0][2], "--array=0-999%50");
  EXPECT_EQ(many[0][3], "--export=ALL,ATTNLAB_ARRAY_OFFSET=0");
  EXPECT_EQ(many[1][3], "--export=ALL,ATTNLAB_ARRAY_OFFSET=1000");
  EXPECT_EQ(many[2][2], "--array=0-499%50");
  EXPECT_EQ(many[2][3], "--export=ALL,ATTNLAB_ARRAY_OFFSET=2000");
  std::vector<fs::path> dirs(2500, "/r/x");
  EXPECT_NE(array_script(dirs, "/r/slurm", o, "").find("#SBATCH --array=0-999%50\n"), std::string::npos);
}

}  // namespace
}  // namespace attnlab::sweep
