// `attnlab sweep` as a researcher meets it: seeds with error bars, CSV,
// resume by config hash, the same bytes for any -j, refusals before work,
// failures reported as they happen.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include "sweep_binary.hpp"

namespace attnlab::testing {
namespace {

using nlohmann::json;

TEST(Sweep, SeedsOfTheBottleneckTableGiveMeanStdAndNOnEveryRow) {
  ScratchDir dir("sweep_seeds");
  const std::string spec = kSpecs + "/bottleneck.json";
  const Outcome o = run_attnlab("sweep " + spec + " seed=0,1,2,3,4 -j 2", dir, dir.path.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto lines = lines_of(o.out);
  ASSERT_EQ(lines.size(), 5u) << o.out;  // the header and the four hidden sizes
  EXPECT_EQ(lines[0], "hidden size         accuracy  n");
  const std::vector<std::string> sizes = {"2", "4", "8", "64"};
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(lines[r + 1].substr(0, 11), std::string(11 - sizes[r].size(), ' ') + sizes[r]) << lines[r + 1];
    EXPECT_NE(lines[r + 1].find(" ± "), std::string::npos) << lines[r + 1];
    EXPECT_EQ(lines[r + 1].substr(lines[r + 1].size() - 3), "  5") << lines[r + 1];  // n = 5
  }
  EXPECT_EQ(run_folders(dir.path / "runs" / "bottleneck").size(), 5u);  // runs/<spec stem>/<hash>

  // CSV: one line per seed and row, seed 0's figures those of `attnlab run`.
  const Outcome csv = run_attnlab("sweep " + spec + " seed=0,1,2,3,4 --format csv", dir, dir.path.string());
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.err.find("every run is done; nothing to run"), std::string::npos) << csv.err;
  const auto rows = lines_of(csv.out);
  ASSERT_EQ(rows.size(), 1u + 5 * 4) << csv.out;
  EXPECT_EQ(rows[0], "run,status,params.seed,row,metrics.accuracy");
  const Outcome single = run_attnlab("run " + spec + " --format json", dir);
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const json want = json::parse(single.out)["results"][0]["data"]["rows"];
  for (std::size_t r = 0; r < 4; ++r) {
    const std::string line = rows[1 + r];
    EXPECT_NE(line.find(",ok,0," + sizes[r] + ","), std::string::npos) << line;
    EXPECT_EQ(std::stod(line.substr(line.rfind(',') + 1)), want[r]["accuracy"].get<double>()) << line;
  }
  // The seed-0 run of the sweep is the chapter's own table.
  EXPECT_NE(rows[4].find(",ok,0,64,"), std::string::npos);
  for (std::size_t s = 0; s < 5; ++s)
    for (std::size_t r = 0; r < 4; ++r)
      EXPECT_NE(rows[1 + s * 4 + r].find(",ok," + std::to_string(s) + "," + sizes[r] + ","), std::string::npos);
}

TEST(Sweep, ResumeRunsExactlyTheMissingRunAndPrintsTheSameTable) {
  ScratchDir dir("sweep_resume");
  const std::string cmd = "sweep " + kSpecs + "/bottleneck.json 'seed=range(0,4)' " + kSmall + " -j 2 --dir runs";
  const Outcome first = run_attnlab(cmd, dir, dir.path.string());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto runs = run_folders(dir.path / "runs");
  ASSERT_EQ(runs.size(), 4u);
  std::vector<std::string> kept;
  std::vector<fs::file_time_type> mtimes;
  for (const auto& r : runs) {
    kept.push_back(slurp(r / "result.json"));
    mtimes.push_back(fs::last_write_time(r / "result.json"));
  }
  fs::remove(runs[2] / "result.json");

  const Outcome plan = run_attnlab(cmd + " --plan", dir, dir.path.string());
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const auto plan_lines = lines_of(plan.out);
  ASSERT_EQ(plan_lines.size(), 5u) << plan.out;
  EXPECT_EQ(plan_lines.back(), "4 runs: 3 done, 0 failed, 1 to run");
  const std::string missing = runs[2].filename().string();
  std::size_t to_run = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const bool is_missing = plan_lines[i].find(missing) != std::string::npos;
    EXPECT_NE(plan_lines[i].find(is_missing ? "  to run  " : "  done  "), std::string::npos) << plan_lines[i];
    to_run += is_missing;
  }
  EXPECT_EQ(to_run, 1u);
  EXPECT_NE(plan_lines[0].find("seed=0, hidden_sizes=[2,8], n_train=256, n_val=128, epochs=1"), std::string::npos)
      << plan_lines[0];

  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a rewrite would show in the mtime
  const Outcome second = run_attnlab(cmd, dir, dir.path.string());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("4 runs: 3 done, 0 failed, 1 to run"), std::string::npos) << second.err;
  EXPECT_EQ(second.out, first.out);
  for (std::size_t i = 0; i < 4; ++i) {
    if (i == 2) {
      EXPECT_EQ(read_json(runs[i] / "result.json")["status"], "ok");
      continue;
    }
    EXPECT_EQ(slurp(runs[i] / "result.json"), kept[i]);  // untouched
    EXPECT_EQ(fs::last_write_time(runs[i] / "result.json"), mtimes[i]);
  }
  const Outcome third = run_attnlab(cmd, dir, dir.path.string());
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_NE(third.err.find("every run is done; nothing to run"), std::string::npos) << third.err;
  EXPECT_EQ(third.out, first.out);  // byte for byte
  EXPECT_EQ(lines_of(run_attnlab(cmd + " --plan", dir, dir.path.string()).out).back(),
            "4 runs: 4 done, 0 failed, 0 to run");
}

TEST(Sweep, EveryFormatIsTheSameBytesForAnyNumberOfJobs) {
  ScratchDir dir("sweep_jobs");
  const std::string base = "sweep " + kSpecs + "/bottleneck.json seed=0,1,2 cell=lstm,gru " + kSmall;
  std::vector<std::string> first;
  for (int jobs : {1, 2, 3}) {
    const std::string cmd = base + " --dir runs_j" + std::to_string(jobs);
    const Outcome o = run_attnlab(cmd + " -j " + std::to_string(jobs), dir, dir.path.string());
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::vector<std::string> outs = {o.out};
    for (const char* f : {"markdown", "csv", "jsonl", "json"}) {
      const Outcome c = run_attnlab(cmd + " --collect --format " + f, dir, dir.path.string());
      ASSERT_EQ(c.exit_code, 0) << c.err;
      outs.push_back(c.out);
    }
    if (first.empty()) first = outs;
    else
      for (std::size_t k = 0; k < outs.size(); ++k) EXPECT_EQ(outs[k], first[k]) << "format " << k << ", -j " << jobs;
  }
  // Two tables, one per cell, each headed by its combination.
  EXPECT_EQ(first[0].find("== cell=lstm ==\nhidden size"), 0u) << first[0];
  EXPECT_NE(first[0].find("\n\n== cell=gru ==\nhidden size"), std::string::npos) << first[0];
  EXPECT_EQ(lines_of(first[2]).size(), 1u + 6 * 2);
  EXPECT_EQ(lines_of(first[3]).size(), 6u);
}

TEST(Sweep, ABadCombinationIsRefusedBeforeAnyRun) {
  ScratchDir dir("sweep_refused");
  const Outcome o = run_attnlab("sweep " + kSpecs + "/bottleneck.json seed=0,1 lr=0.001,0 --dir runs", dir,
                                dir.path.string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("2 of the sweep's 4 runs would be refused, so none is started"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("run 1 (seed=0, lr=0): " + kSpecs + "/bottleneck.json: at /lr: 0 is not allowed"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(fs::exists(dir.path / "runs"));
  dir.write("a_file", "");
  const Outcome not_a_folder = run_attnlab("sweep " + kSpecs + "/bottleneck.json seed=0 --dir a_file", dir,
                                           dir.path.string());
  EXPECT_EQ(not_a_folder.exit_code, 2);
  EXPECT_NE(not_a_folder.err.find("--dir: a_file exists and is not a folder"), std::string::npos) << not_a_folder.err;
  const Outcome unknown = run_attnlab("sweep " + kSpecs + "/bottleneck.json hiden_sizes=[2]", dir, dir.path.string());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("(did you mean \"hidden_sizes\"?)"), std::string::npos) << unknown.err;
  const Outcome no_folder = run_attnlab("sweep " + kSpecs + "/bottleneck.json seed=0 -o nowhere/x.csv", dir,
                                        dir.path.string());
  EXPECT_EQ(no_folder.exit_code, 2);
  EXPECT_NE(no_folder.err.find("does not exist"), std::string::npos) << no_folder.err;
  EXPECT_FALSE(fs::exists(dir.path / "runs"));
}

TEST(Sweep, ADivergedRunIsNamedWithItsRowEpochAndStepOnce) {
  ScratchDir dir("sweep_diverged");
  // lr = 1000 takes positions' loss to NaN within its first epoch (README, "Watched while it runs").
  const Outcome o = run_attnlab("sweep " + kSpecs +
                                    "/positions.json seed=0 lr=1000 'variants=[\"none\"]' n_train=2048 n_val=64 "
                                    "epochs=1 --dir runs -j 1",
                                dir, dir.path.string());
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("1 of 1 runs failed (run the sweep again to retry them):\n  run 0 diverged: row no positions, epoch 1, step 12, loss nan ("),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("diverged: diverged"), std::string::npos) << o.err;
}

TEST(Sweep, AFailureIsReportedAtOnceTheOthersGoOnAndARerunRetriesIt) {
  ScratchDir dir("sweep_failure");
  const std::string cmd = "sweep " + kSpecs + "/bottleneck.json seed=0,1,2 " + kSmall + " --dir runs";
  // --launcher commands prepares the folders without running anything.
  const Outcome prepared = run_attnlab(cmd + " --launcher commands", dir, dir.path.string());
  ASSERT_EQ(prepared.exit_code, 0) << prepared.err;
  const std::string plan = run_attnlab(cmd + " --plan", dir, dir.path.string()).out;
  const auto plan_lines = lines_of(plan);
  const std::string hash0 = plan_lines[0].substr(3, 16);
  // A real failure of `attnlab run`: its output path is a folder (not empty,
  // so run-one's clean-up of a stale output cannot remove it).
  fs::create_directories(dir.path / "runs" / hash0 / ".output.json" / "x");

  const Outcome o = run_attnlab(cmd + " -j 1", dir, dir.path.string());
  EXPECT_EQ(o.exit_code, 1);
  const auto err = lines_of(o.err);
  // Said when it happened (before the later runs finished), and again at the end.
  std::size_t failed_at = 0, run2_at = 0;
  for (std::size_t i = 0; i < err.size(); ++i) {
    if (err[i].find("run 0 (seed=0) FAILED: --output: ") != std::string::npos) failed_at = i;
    if (err[i].find("run 2 (seed=2) ok") != std::string::npos) run2_at = i;
  }
  EXPECT_GT(failed_at, 0u) << o.err;
  EXPECT_GT(run2_at, failed_at) << o.err;
  EXPECT_NE(o.err.find("1 of 3 runs failed (run the sweep again to retry them):\n  run 0 (seed=0) failed: --output: "),
            std::string::npos)
      << o.err;
  const json r0 = read_json(dir.path / "runs" / hash0 / "result.json");
  EXPECT_EQ(r0["status"], "failed");
  EXPECT_NE(r0["error"].get<std::string>().find("is a folder"), std::string::npos) << r0;
  EXPECT_EQ(r0["exit_code"], 2);
  // The table still shows the two runs that finished.
  EXPECT_NE(o.out.find("  2\n"), std::string::npos) << o.out;
  EXPECT_EQ(lines_of(run_attnlab(cmd + " --plan", dir, dir.path.string()).out).back(),
            "3 runs: 2 done, 1 failed, 0 to run");

  fs::remove_all(dir.path / "runs" / hash0 / ".output.json");
  const Outcome retry = run_attnlab(cmd, dir, dir.path.string());
  EXPECT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_EQ(read_json(dir.path / "runs" / hash0 / "result.json")["status"], "ok");
  EXPECT_NE(retry.out.find("  3\n"), std::string::npos) << retry.out;
}

TEST(Sweep, FailFastStartsNothingAfterTheFirstFailure) {
  ScratchDir dir("sweep_fail_fast");
  const std::string cmd = "sweep " + kSpecs + "/bottleneck.json seed=0,1,2 " + kSmall + " --dir runs";
  ASSERT_EQ(run_attnlab(cmd + " --launcher commands", dir, dir.path.string()).exit_code, 0);
  const std::string hash0 = lines_of(run_attnlab(cmd + " --plan", dir, dir.path.string()).out)[0].substr(3, 16);
  fs::create_directories(dir.path / "runs" / hash0 / ".output.json" / "x");
  const Outcome o = run_attnlab(cmd + " -j 1 --fail-fast", dir, dir.path.string());
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("2 of 3 runs have no result yet:\n  run 1 (seed=1)\n  run 2 (seed=2)"), std::string::npos)
      << o.err;
  EXPECT_EQ(lines_of(run_attnlab(cmd + " --plan", dir, dir.path.string()).out).back(),
            "3 runs: 0 done, 1 failed, 2 to run");
}

TEST(Sweep, ASpecCarriesItsOwnSweepBlock) {
  ScratchDir dir("sweep_block");
  const std::string spec = dir.write(
      "sq.json", R"({"experiment": "sqrt_d", "widths": [8, 64], "sweep": {"seed": [0, 1, 2], "n_keys": "20,40"}})");
  const Outcome o = run_attnlab("sweep " + spec, dir, dir.path.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(run_folders(dir.path / "runs" / "sq").size(), 6u);
  EXPECT_EQ(o.out.find("== n_keys=20 ==\nwidth      score std       max weight"), 0u) << o.out;
  EXPECT_NE(o.out.find("== n_keys=40 =="), std::string::npos) << o.out;
  // The command line replaces an axis of the block.
  EXPECT_EQ(lines_of(run_attnlab("sweep " + spec + " n_keys=20 --plan", dir, dir.path.string()).out).back(),
            "3 runs: 3 done, 0 failed, 0 to run");
  // `run` runs the spec the sweep is over; `validate` checks every combination.
  const Outcome run = run_attnlab("run " + spec, dir);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const Outcome valid = run_attnlab("validate " + spec, dir);
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
  EXPECT_NE(valid.err.find("ok (sqrt_d, a sweep of 6 runs)"), std::string::npos) << valid.err;
  const std::string bad = dir.write("bad.json", R"({"experiment": "sqrt_d", "sweep": {"n_keys": [20, 0]}})");
  const Outcome invalid = run_attnlab("validate " + bad, dir);
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_NE(invalid.err.find("run 1 (n_keys=0)"), std::string::npos) << invalid.err;
}

TEST(Sweep, AKindWithoutATableAggregatesTheNumbersOfItsData) {
  ScratchDir dir("sweep_block_kind");
  const Outcome o = run_attnlab("sweep " + kSpecs + "/block.json seed=0,1", dir, dir.path.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto lines = lines_of(o.out);
  ASSERT_EQ(lines.size(), 2u) << o.out;
  EXPECT_NE(lines[0].find("out_sum"), std::string::npos) << o.out;
  EXPECT_NE(lines[0].find("parameters"), std::string::npos) << o.out;
  EXPECT_NE(lines[1].find("12704 ± 0  2"), std::string::npos) << o.out;  // the parameters do not depend on the seed
}

TEST(RunOne, ClearsTheTemporaryOfAChildKilledWhileWritingItsOutput) {
  // A child stopped between creating and renaming its -o temporary (a
  // SIGTERM to the sweep under load once left one; kill -9 always would)
  // leaves ".output.json.XXXXXXXXXXXX.tmp"; the next sweep removes it, and
  // leaves a link of the same shape alone.
  ScratchDir dir("run_one_leftover");
  const std::string cmd = "sweep " + kSpecs + "/bottleneck.json seed=0 " + kSmall + " --dir runs";
  ASSERT_EQ(run_attnlab(cmd + " --launcher commands", dir, dir.path.string()).exit_code, 0);
  const fs::path run = run_folders(dir.path / "runs").at(0);
  const fs::path leftover = run / "..output.json.0123456789ab.tmp";
  const fs::path link = run / "..output.json.ba9876543210.tmp";
  std::ofstream(leftover) << "{\"half";
  fs::create_symlink(run / "spec.json", link);
  const Outcome o = run_attnlab(cmd, dir, dir.path.string());
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_FALSE(fs::exists(leftover));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_json(run / "result.json")["status"], "ok");
  EXPECT_TRUE(fs::exists(run / "spec.json"));
}

TEST(RunOne, NeverOverwritesAFinishedRunAndRefusesAFolderThatIsNotARun) {
  ScratchDir dir("run_one");
  const std::string cmd = "sweep " + kSpecs + "/bottleneck.json seed=0 " + kSmall + " --dir runs";
  ASSERT_EQ(run_attnlab(cmd, dir, dir.path.string()).exit_code, 0);
  const fs::path run = run_folders(dir.path / "runs").at(0);
  const std::string before = slurp(run / "result.json");
  const auto mtime = fs::last_write_time(run / "result.json");
  const json spec = read_json(run / "spec.json");
  EXPECT_EQ(spec["seed"], 0);
  EXPECT_EQ(spec["lr"], 0.003);  // the resolved spec: defaults filled in
  const json result = json::parse(before);
  EXPECT_EQ(result["status"], "ok");
  EXPECT_EQ(result["spec"], spec);
  EXPECT_EQ(result["table"]["rows"].size(), 2u);
  for (const char* k : {"attnlab", "start", "end", "seconds", "host", "text", "data"}) EXPECT_TRUE(result.contains(k)) << k;
  EXPECT_NE(slurp(run / "stderr.log").find("attnlab: running bottleneck"), std::string::npos);

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const Outcome again = run_attnlab("run-one " + run.string(), dir);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(slurp(run / "result.json"), before);
  EXPECT_EQ(fs::last_write_time(run / "result.json"), mtime);

  const Outcome not_a_run = run_attnlab("run-one " + dir.path.string(), dir);
  EXPECT_EQ(not_a_run.exit_code, 2);
  EXPECT_NE(not_a_run.err.find("is not a run folder"), std::string::npos) << not_a_run.err;

  // A folder whose spec.json no longer matches its name is never resumed into.
  json edited = spec;
  edited["epochs"] = 2;
  std::ofstream(run / "spec.json") << edited.dump(2);
  const Outcome mixed = run_attnlab(cmd, dir, dir.path.string());
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("spec differs from the run planned under its name"), std::string::npos) << mixed.err;
}

}  // namespace
}  // namespace attnlab::testing
