// Progress: one live line on a terminal, plain lines otherwise, failures
// said at once in both.
#include <gtest/gtest.h>

#include <cstdio>

#include "sweep/progress.hpp"
#include "sweep_binary.hpp"

namespace attnlab::sweep {
namespace {

std::string run_progress(bool live) {
  std::FILE* f = std::tmpfile();
  {
    Progress p(f, live, {.done = 1, .failed = 0, .running = 0, .to_run = 3});
    p.started();
    p.started();
    p.finished_ok("run 1 (seed=1)", 2.25);
    p.finished_failed("run 2 (seed=2)", "out of memory", "runs/b/h2/stderr.log");
    p.started();
    p.gave_up("run 3 (seed=3)");
    EXPECT_EQ(Progress::summary(p.counts()), "2 done, 1 failed, 0 running, 1 to run");
  }
  std::rewind(f);
  std::string out;
  char buf[512];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

TEST(Progress, PlainLinesWhenNotATerminal) {
  EXPECT_EQ(run_progress(false),
            "attnlab: sweep: run 1 (seed=1) ok in 2.2 s; 2 done, 0 failed, 1 running, 1 to run\n"
            "attnlab: sweep: run 2 (seed=2) FAILED: out of memory\n"
            "  its stderr: runs/b/h2/stderr.log\n"
            "attnlab: sweep: 2 done, 1 failed, 0 running, 1 to run\n");
}

TEST(Progress, OneLiveLineOnATerminalWithFailuresAboveIt) {
  const std::string out = run_progress(true);
  // Redrawn in place: carriage return, clear to the end of the line.
  EXPECT_NE(out.find("\r\033[Ksweep: 1 done, 0 failed, 1 running, 2 to run · 0s elapsed · ETA --"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\r\033[Ksweep: 2 done, 0 failed, 1 running, 1 to run · 0s elapsed · ETA 0s"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\r\033[Kattnlab: sweep: run 2 (seed=2) FAILED: out of memory\n  its stderr: runs/b/h2/stderr.log\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("ok in"), std::string::npos) << "finished runs only move the counts";
  // The last state stays on screen, ending the line.
  EXPECT_EQ(out.substr(out.rfind('\r')), "\r\033[Ksweep: 2 done, 1 failed, 0 running, 1 to run · 0s elapsed · ETA 0s\n");
}

TEST(Progress, Durations) {
  EXPECT_EQ(format_duration(42.4), "42s");
  EXPECT_EQ(format_duration(185), "3m05s");
  EXPECT_EQ(format_duration(3725), "1h02m");
}

TEST(Progress, ASweepOnARealTerminalDrawsTheLiveLine) {
  // util-linux `script` gives the sweep a pseudo-terminal as its stderr.
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "util-linux `script` is not installed";
  testing::ScratchDir dir("progress_tty");
  const std::string cmd = std::string("'") + ATTNLAB_BINARY + "' sweep " + testing::kSpecs +
                          "/sqrt_d.json seed=0,1,2 -j 1 --dir '" + (dir.path / "runs").string() + "'";
  const std::string log = (dir.path / "tty.txt").string();
  ASSERT_EQ(std::system(("script -qec \"" + cmd + "\" '" + log + "' >/dev/null 2>&1 </dev/null").c_str()), 0);
  const std::string tty = testing::slurp(log);
  EXPECT_NE(tty.find("\r\033[Ksweep: 3 done, 0 failed, 0 running, 0 to run · "), std::string::npos) << tty;
  EXPECT_EQ(tty.find("ok in"), std::string::npos) << tty;
}

}  // namespace
}  // namespace attnlab::sweep
