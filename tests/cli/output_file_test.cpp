// `-o FILE` only ever writes the regular file it was asked for, and says so
// before any work; `--check` cannot be fooled by its own output file, an empty
// name or a file with other line endings. Each case as a user would meet it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <unistd.h>

#include <filesystem>

#include "cli/run_binary.hpp"
#include "support/golden.hpp"

namespace attnlab::testing {
namespace {

namespace fs = std::filesystem;

const std::string kSqrt = std::string(ATTNLAB_EXPERIMENTS_DIR) + "/sqrt_d.json";

// A refusal of -o: exit 2, nothing printed, no work started, the reason named.
void expect_refused_before_work(const Outcome& o, const std::string& reason) {
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find(reason), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("running sqrt_d"), std::string::npos) << "refused before any work: " << o.err;
}

// Every name in the folder, so a leftover temporary is seen.
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(OutputFile, ADeviceIsNeverReplaced) {
  // As root, the old -o renamed a regular file over /dev/null.
  ScratchDir dir("o_device");
  const Outcome o = run_attnlab("run " + kSqrt + " -o /dev/null", dir);
  expect_refused_before_work(o, "cannot write /dev/null: it is a character device");
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(OutputFile, AFifoIsRefused) {
  ScratchDir dir("o_fifo");
  const auto fifo = dir.path / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  expect_refused_before_work(run_attnlab("run " + kSqrt + " -o " + fifo.string(), dir), "it is a FIFO");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(OutputFile, ASymlinkIsRefusedAndItsTargetUntouched) {
  ScratchDir dir("o_link");
  const std::string victim = dir.write("victim.txt", "precious\n");
  const auto link = dir.path / "result.txt";
  fs::create_symlink(victim, link);
  expect_refused_before_work(run_attnlab("run " + kSqrt + " -o " + link.string(), dir), "it is a symbolic link");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(victim), "precious\n");
}

TEST(OutputFile, AFolderIsRefused) {
  ScratchDir dir("o_folder");
  fs::create_directory(dir.path / "sub");
  expect_refused_before_work(run_attnlab("run " + kSqrt + " -o " + (dir.path / "sub").string(), dir),
                             "it is a folder");
}

TEST(OutputFile, AReadOnlyFileIsRefused) {
  // By its mode bits, so root (for whom every file is writable) is refused too.
  ScratchDir dir("o_readonly");
  const std::string ro = dir.write("ro.txt", "keep me\n");
  ASSERT_EQ(::chmod(ro.c_str(), 0444), 0);
  expect_refused_before_work(run_attnlab("run " + kSqrt + " -o " + ro, dir), "the file is read-only");
  EXPECT_EQ(slurp(ro), "keep me\n");
}

TEST(OutputFile, TheSpecItselfIsRefusedHoweverItIsSpelled) {
  ScratchDir dir("o_spec");
  const std::string spec = dir.write("spec.json", R"({"experiment": "sqrt_d", "widths": [8]})");
  fs::create_directory(dir.path / "sub");
  fs::create_hard_link(spec, dir.path / "hard.json");
  for (const std::string& out : {spec, (dir.path / "sub" / ".." / "spec.json").string(),
                                (dir.path / "hard.json").string()}) {
    const Outcome o = run_attnlab("run " + spec + " -o " + out, dir);
    expect_refused_before_work(o, "an input of this run");
  }
  EXPECT_EQ(slurp(spec), R"({"experiment": "sqrt_d", "widths": [8]})");
}

TEST(OutputFile, TheCheckFileIsRefusedSoTheNextCheckCannotPassByItself) {
  ScratchDir dir("o_check");
  const std::string golden = dir.write("golden.txt", "== sqrt_d: x.json ==\nnot what it prints\n");
  const Outcome o = run_attnlab("run " + kSqrt + " --check " + golden + " -o " + golden, dir);
  expect_refused_before_work(o, "an input of this run");
  EXPECT_EQ(slurp(golden), "== sqrt_d: x.json ==\nnot what it prints\n");
}

TEST(OutputFile, ReplacesARegularFileKeepingItsModeAndLeavesNoTemporary) {
  ScratchDir dir("o_replace");
  const std::string out = dir.write("result.txt", "old\n");
  ASSERT_EQ(::chmod(out.c_str(), 0640), 0);
  const Outcome o = run_attnlab("run " + kSqrt + " -o " + out, dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(slurp(out), course_output("04_sqrt_d.course.txt"));
  struct stat st;
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(names_in(dir.path), (std::vector<std::string>{"result.txt", "stderr.txt", "stdout.txt"}));
}

TEST(OutputFile, AFailedRunLeavesNoFileAndTheOldOneWhole) {
  // The README: "a run that fails leaves no result file behind". A file size
  // limit of 512 bytes makes the write of the ~2 kB JSON fail (EFBIG) after
  // the work, while stderr's few lines still fit.
  const std::string limit = "trap '' XFSZ; ulimit -f 1; ";
  ScratchDir dir("o_failed");
  const auto fresh = dir.path / "fresh.txt";
  Outcome o = run_attnlab("run " + kSqrt + " --format json -o " + fresh.string(), dir, "", limit);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("cannot write " + fresh.string()), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(fresh));
  const std::string old = dir.write("old.txt", "the previous result\n");
  o = run_attnlab("run " + kSqrt + " --format json -o " + old, dir, "", limit);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_EQ(slurp(old), "the previous result\n");
  EXPECT_EQ(names_in(dir.path), (std::vector<std::string>{"old.txt", "stderr.txt", "stdout.txt"}))
      << "no temporary left behind";
}

TEST(OutputFile, IsWrittenBeforeTheCheckSoItHoldsWhatTheFailedRunPrinted) {
  // The README: "With -o, the output file is written before the comparison".
  ScratchDir dir("o_then_check");
  const std::string wrong =
      dir.write("wrong.txt", replace_first(course_output("04_sqrt_d.course.txt"), "0.9167", "0.9168"));
  const auto out = dir.path / "result.txt";
  const Outcome o = run_attnlab("run " + kSqrt + " --check " + wrong + " -o " + out.string(), dir);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("expected 0.9168, got 0.9167"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(out), course_output("04_sqrt_d.course.txt"));
}

TEST(CheckFile, AnEmptyOrMissingCheckFileIsRefusedBeforeWork) {
  ScratchDir dir("check_empty");
  expect_refused_before_work(run_attnlab("run " + kSqrt + " --check ''", dir), "--check: needs a file name");
  expect_refused_before_work(run_attnlab("run " + kSqrt + " --check " + (dir.path / "none.txt").string(), dir),
                             "no such file");
  const std::string empty = dir.write("empty.txt", "");
  expect_refused_before_work(run_attnlab("run " + kSqrt + " --check " + empty, dir), "it is empty");
}

TEST(CheckFile, ACrlfFileIsToldAboutLineEndings) {
  ScratchDir dir("check_crlf");
  std::string text = course_output("04_sqrt_d.course.txt");
  for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 2) text.replace(at, 1, "\r\n");
  const std::string crlf = dir.write("crlf.txt", text);
  expect_refused_before_work(run_attnlab("run " + kSqrt + " --check " + crlf, dir),
                             "it has Windows line endings (CRLF)");
}

TEST(CheckFile, ASingleSpecRunPassesAgainstItsOwnOutput) {
  // `run a.json > g; run a.json --check g` once failed: one spec prints no heading.
  ScratchDir dir("check_self");
  const Outcome first = run_attnlab("run " + kSqrt, dir);
  ASSERT_EQ(first.exit_code, 0);
  const std::string golden = dir.write("golden.txt", first.out);
  const Outcome again = run_attnlab("run " + kSqrt + " --check " + golden, dir);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("every table matches"), std::string::npos) << again.err;
}

TEST(CheckFile, TwoSpecsOfOneNameInTwoFoldersAreBothChecked) {
  ScratchDir dir("check_same_name");
  fs::create_directories(dir.path / "x");
  fs::create_directories(dir.path / "y");
  dir.write("x/sqrt_d.json", R"({"experiment": "sqrt_d", "widths": [8]})");
  dir.write("y/sqrt_d.json", R"({"experiment": "sqrt_d", "widths": [64]})");
  const Outcome run = run_attnlab("run x/sqrt_d.json y/sqrt_d.json", dir, dir.path.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run_attnlab("run x/sqrt_d.json y/sqrt_d.json --check golden.txt", dir, dir.path.string()).exit_code, 2)
      << "no golden yet";
  dir.write("golden.txt", replace_first(run.out, "0.7797", "0.7798"));  // a drift in x's table only
  const Outcome check = run_attnlab("run x/sqrt_d.json y/sqrt_d.json --check golden.txt", dir, dir.path.string());
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_NE(check.err.find("table sqrt_d: x/sqrt_d.json, line 2, row \"8\", column \"max weight\""),
            std::string::npos)
      << check.err;
}

}  // namespace
}  // namespace attnlab::testing
