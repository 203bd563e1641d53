// Stopping a sweep for real: Ctrl-C (SIGINT to the whole foreground process
// group, as a terminal sends it) or SIGTERM to the sweep alone. Either way
// every result.json left is whole, nothing half-written remains, no process
// is left behind, and the next invocation finishes the sweep and prints
// what an uninterrupted sweep prints.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "sweep_binary.hpp"

namespace attnlab::testing {
namespace {

using nlohmann::json;

// Six runs of about a second each (-j 2: three rounds).
const std::vector<std::string> kArgs = {"sweep",        kSpecs + "/bottleneck.json",
                                        "seed=range(0,6)", "hidden_sizes=[64]",
                                        "n_train=2000", "n_val=500",
                                        "epochs=2",     "-j",
                                        "2",            "--dir",
                                        "runs"};

std::string shell_line(const std::vector<std::string>& args) {
  std::string s;
  for (std::size_t i = 1; i < args.size(); ++i) s += " '" + args[i] + "'";
  return args[0] + s;
}

std::size_t results_in(const fs::path& dir) {
  std::size_t n = 0;
  if (!fs::exists(dir)) return 0;
  for (const auto& run : run_folders(dir)) n += fs::exists(run / "result.json");
  return n;
}

// Waits until the first run has its result (others are running then).
bool first_result(const fs::path& dir) {
  for (int i = 0; i < 3000; ++i) {
    if (results_in(dir) > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void expect_only_whole_results(const fs::path& dir, std::size_t& complete) {
  complete = 0;
  for (const auto& run : run_folders(dir)) {
    for (const auto& f : fs::directory_iterator(run)) {
      const std::string name = f.path().filename().string();
      EXPECT_TRUE(name == "spec.json" || name == "result.json" || name == "stderr.log" || name == "lock")
          << "left behind: " << f.path();
    }
    if (!fs::exists(run / "result.json")) continue;
    const json r = json::parse(slurp(run / "result.json"));  // throws on a partial file
    EXPECT_EQ(r["status"], "ok") << run;
    ++complete;
  }
}

bool group_gone(pid_t group) {
  for (int i = 0; i < 250; ++i) {
    if (::kill(-group, 0) != 0 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void stop_and_resume(bool whole_group, int sig, const char* name) {
  ScratchDir dir(std::string("sweep_signal_") + name);
  const fs::path runs = dir.path / "runs";
  Background bg(kArgs, dir, dir.path.string());
  ASSERT_GT(bg.pid, 0);
  const pid_t group = bg.pid;
  ASSERT_TRUE(first_result(runs)) << slurp(bg.err);
  ASSERT_EQ(::kill(whole_group ? -group : group, sig), 0);
  const int code = bg.wait();
  EXPECT_EQ(code, 128 + sig) << slurp(bg.err);
  const std::string err = slurp(bg.err);
  EXPECT_NE(err.find(sig == SIGINT ? "stopped by Ctrl-C (SIGINT)" : "stopped by SIGTERM"), std::string::npos) << err;
  EXPECT_NE(err.find("Every result.json is whole; run the same command again to finish."), std::string::npos) << err;
  EXPECT_TRUE(group_gone(group)) << "a run outlived its sweep";
  EXPECT_TRUE(slurp(bg.out).empty()) << "no table from a sweep that did not finish";

  std::size_t complete = 0;
  expect_only_whole_results(runs, complete);
  EXPECT_GE(complete, 1u);
  EXPECT_LT(complete, 6u) << "stopped too late to test anything";

  const Outcome resumed = run_attnlab(shell_line(kArgs), dir, dir.path.string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(fmt::format("6 runs: {} done, 0 failed, {} to run", complete, 6 - complete)),
            std::string::npos)
      << resumed.err;
  expect_only_whole_results(runs, complete);
  EXPECT_EQ(complete, 6u);

  // What an uninterrupted sweep prints, byte for byte.
  std::vector<std::string> fresh = kArgs;
  fresh.back() = "runs_uninterrupted";
  const Outcome straight = run_attnlab(shell_line(fresh), dir, dir.path.string());
  ASSERT_EQ(straight.exit_code, 0) << straight.err;
  EXPECT_EQ(resumed.out, straight.out);
  EXPECT_EQ(lines_of(resumed.out).size(), 2u) << resumed.out;
}

TEST(SweepSignals, CtrlCLeavesOnlyWholeResultsAndTheNextRunFinishes) { stop_and_resume(true, SIGINT, "int"); }

TEST(SweepSignals, SigtermToTheSweepAloneStopsItsRunsToo) { stop_and_resume(false, SIGTERM, "term"); }

}  // namespace
}  // namespace attnlab::testing
