// The subcommands as a user meets them: the course's table on stdout, the
// filled spec, the list of kinds, result files that are whole or absent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/run_binary.hpp"
#include "support/golden.hpp"

namespace attnlab::testing {
namespace {

const std::string kSpecs = ATTNLAB_EXPERIMENTS_DIR;

TEST(Commands, SqrtDPrintsTheCourseTableByteForByte) {
  ScratchDir dir("sqrt_d");
  const Outcome o = run_attnlab("run " + kSpecs + "/sqrt_d.json", dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // The course's own printed output (data/course/04_sqrt_d.course.txt),
  // which PyTorch 1.13 reproduces digit for digit.
  EXPECT_EQ(o.out, course_output("04_sqrt_d.course.txt"));
}

TEST(Commands, SameSpecSameBytesWhateverTheJobs) {
  ScratchDir dir("jobs");
  const Outcome one = run_attnlab("run -j 1 " + kSpecs + "/sqrt_d.json", dir);
  const Outcome two = run_attnlab("run -j 2 " + kSpecs + "/sqrt_d.json", dir);
  ASSERT_EQ(one.exit_code, 0);
  EXPECT_EQ(one.out, two.out);
}

TEST(Commands, TrainedRowsPrintTheSameBytesOnOneOrTwoThreads) {
  ScratchDir dir("jobs_trained");
  const std::string args = " " + kSpecs + "/rnn_vs_attention.json --set epochs=1 --set n_train=640 --format json";
  const Outcome one = run_attnlab("run -j 1" + args, dir);
  const Outcome two = run_attnlab("run -j 2" + args, dir);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  auto accuracies = [](const std::string& out) {
    std::vector<double> acc;
    const auto doc = nlohmann::json::parse(out);  // kept alive for the loop below
    for (const auto& row : doc["results"][0]["data"]["rows"]) acc.push_back(row["accuracy"]);
    return acc;
  };
  // Every row owns its generator and buffers; only the time column may differ.
  EXPECT_EQ(accuracies(one.out), accuracies(two.out));
  EXPECT_EQ(accuracies(one.out).size(), 4u);
}

TEST(Commands, ShowFillsDefaults) {
  ScratchDir dir("show");
  const std::string spec = dir.write("s.json", R"({"experiment": "sqrt_d", "widths": [16]})");
  const Outcome o = run_attnlab("show " + spec, dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j.at("widths"), nlohmann::json({16}));
  EXPECT_EQ(j.at("n_keys"), 20);
  EXPECT_EQ(j.at("seed"), 0);
  EXPECT_EQ(j.at("experiment"), "sqrt_d");
}

TEST(Commands, ListNamesEveryKindOnALine) {
  ScratchDir dir("list");
  const Outcome o = run_attnlab("list", dir);
  ASSERT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out.find("bottleneck "), 0u) << "bottleneck (script 01) comes first in course order:\n" << o.out;
  EXPECT_LT(o.out.find("\nsqrt_d "), o.out.find("\npositions ")) << "script 04 before script 13";
  EXPECT_LT(o.out.find("\npositions "), o.out.find("\nattention_map ")) << "script 13 before script 19";
  EXPECT_NE(o.out.find("why attention divides by sqrt(d)"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("n_keys"), std::string::npos) << "parameters only when a kind is named";
}

TEST(Commands, ListWithAKindShowsItsParameters) {
  ScratchDir dir("list_kind");
  const Outcome o = run_attnlab("list sqrt_d", dir);
  ASSERT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("    n_keys = 20\n        keys scored against the one query"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("an integer in [2, 100000]"), std::string::npos) << o.out;
  EXPECT_EQ(run_attnlab("list nosuchkind", dir).exit_code, 2);
}

TEST(Commands, ValidateSaysOkOnStderrOnly) {
  ScratchDir dir("validate");
  const Outcome o = run_attnlab("validate " + kSpecs + "/sqrt_d.json", dir);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("ok (sqrt_d)"), std::string::npos);
}

TEST(Commands, VersionAndHelp) {
  ScratchDir dir("help");
  const Outcome v = run_attnlab("--version", dir);
  EXPECT_EQ(v.exit_code, 0);
  // The version names what decides the trained digits: the instruction set,
  // attnlab's own sgemm tiles and OpenBLAS's kernel set (Haswell on every
  // AVX2 machine).
  EXPECT_EQ(v.out.find(std::string("attnlab ") + ATTNLAB_VERSION + " (built for " + ATTNLAB_ARCH + ", sgemm tiles "), 0u)
      << v.out;
  if (__builtin_cpu_supports("avx2") && !std::getenv("ATTNLAB_BLAS_CORETYPE")) {
    EXPECT_NE(v.out.find("OpenBLAS kernels Haswell)"), std::string::npos) << v.out;
  }
  if (std::string(ATTNLAB_ARCH) == "x86-64-v3") {
    EXPECT_NE(v.out.find(", sgemm tiles AVX2+FMA, OpenBLAS kernels "), std::string::npos) << v.out;
  }
  const Outcome h = run_attnlab("--help", dir);
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("Examples:"), std::string::npos);
  EXPECT_NE(h.out.find("Exit codes: 0 ok, 2 bad usage or spec (or a run too big for the memory limits),\n"
                       "1 failure while running (or a training row that diverged)."),
            std::string::npos);
}

TEST(Commands, JsonOutputToFileCarriesSpecAndFigures) {
  ScratchDir dir("json");
  const auto out = (dir.path / "result.json").string();
  const Outcome o =
      run_attnlab("run " + kSpecs + "/sqrt_d.json --set 'widths=[8]' --format json -o " + out, dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "");
  const auto j = nlohmann::json::parse(slurp(out));
  const auto& r = j.at("results").at(0);
  EXPECT_EQ(r.at("experiment"), "sqrt_d");
  EXPECT_EQ(r.at("spec").at("widths"), nlohmann::json({8}));
  // 3.579 is the course's printed score std for width 8.
  EXPECT_NEAR(r.at("data").at("rows").at(0).at("score_std").get<double>(), 3.579, 5e-4);
}

TEST(Commands, OutputIntoAMissingFolderIsRefusedBeforeWork) {
  ScratchDir dir("unwritable");
  const auto out = (dir.path / "no_such_dir" / "r.txt").string();
  const Outcome o = run_attnlab("run " + kSpecs + "/sqrt_d.json -o " + out, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_NE(o.err.find("does not exist"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("running sqrt_d"), std::string::npos) << "refused before any work: " << o.err;
}

TEST(Commands, AFailedWriteToStdoutIsAFailure) {
  ScratchDir dir("full");
  // /dev/full refuses every write, as a full disk does.
  const auto err = dir.path / "err.txt";
  const std::string cmd = std::string("'") + ATTNLAB_BINARY + "' run " + kSpecs + "/sqrt_d.json >/dev/full 2>'" +
                          err.string() + "'";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(slurp(err).find("could not write the output to stdout: No space left on device"), std::string::npos)
      << slurp(err);
}

TEST(Commands, CheckWithOneSpecComparesItsTable) {
  ScratchDir dir("check_one");
  const std::string course = course_output("04_sqrt_d.course.txt");
  const std::string expected = dir.write("expected.txt", "== sqrt_d: experiments/sqrt_d.json ==\n" + course);
  const Outcome o = run_attnlab("run " + kSpecs + "/sqrt_d.json --check " + expected, dir);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, course) << "a single table still prints without a heading";
}

TEST(Commands, SeveralSpecsAreSeparatedByALineNamingEach) {
  ScratchDir dir("several");
  const std::string a = dir.write("a.json", R"({"experiment": "sqrt_d", "widths": [8]})");
  const Outcome o = run_attnlab("run " + a + " " + a, dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out.find("== sqrt_d: " + a + " ==\n"), 0u) << o.out;
  EXPECT_NE(o.out.find("\n\n== sqrt_d: " + a + " ==\n"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace attnlab::testing
