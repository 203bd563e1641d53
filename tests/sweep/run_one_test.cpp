// result.json from what `attnlab run --format json` left behind: the status
// contract (ok / failed / diverged), and the fallbacks for a run that has
// no status field (exit code 0 = ok; otherwise its last stderr line).
#include <gtest/gtest.h>

#include "sweep/run_one.hpp"

namespace attnlab::sweep {
namespace {

using nlohmann::json;

const json kSpec = {{"experiment", "bottleneck"}, {"seed", 0}};
const RunTiming kTiming{"2026-01-01T00:00:00.000Z", "2026-01-01T00:00:02.500Z", 2.5, "node7"};

json document(json entry) { return {{"attnlab", "0.1.0"}, {"results", {entry}}}; }

TEST(ComposeResult, AnEntryWithoutStatusAndExitZeroIsOk) {
  const json entry = {{"data", {{"rows", json::array()}}}, {"text", "t\n"}, {"table", {{"label", "x"}}}};
  const json r = compose_result("abc", kSpec, {{0, 0}, document(entry), "attnlab: running\n"}, kTiming);
  EXPECT_EQ(r["status"], "ok");
  EXPECT_FALSE(r.contains("error"));
  EXPECT_EQ(r["run"], "abc");
  EXPECT_EQ(r["experiment"], "bottleneck");
  EXPECT_EQ(r["text"], "t\n");
  EXPECT_EQ(r["table"], entry["table"]);
  EXPECT_EQ(r["spec"], kSpec);
  EXPECT_EQ(r["exit_code"], 0);
  EXPECT_EQ(r["host"], "node7");
  EXPECT_EQ(r["seconds"], 2.5);
  EXPECT_EQ(r["start"], kTiming.start);
  EXPECT_EQ(r["attnlab"], ATTNLAB_VERSION);
}

TEST(ComposeResult, ANonZeroExitFailsWithTheLastStderrLine) {
  const json r = compose_result(
      "abc", kSpec,
      {{1, 0}, nullptr, "attnlab: running bottleneck\nattnlab: failed: spec.json: out of memory running bottleneck\n\n"},
      kTiming);
  EXPECT_EQ(r["status"], "failed");
  EXPECT_EQ(r["error"], "spec.json: out of memory running bottleneck");
  EXPECT_EQ(r["exit_code"], 1);
}

TEST(ComposeResult, AKilledRunFailsNamingTheSignal) {
  const json r = compose_result("abc", kSpec, {{-1, 9}, nullptr, ""}, kTiming);
  EXPECT_EQ(r["status"], "failed");
  EXPECT_EQ(r["error"], "attnlab run ended with killed by signal 9 (Killed) and printed nothing");
  EXPECT_EQ(r["signal"], 9);
  EXPECT_FALSE(r.contains("exit_code"));
}

TEST(ComposeResult, DivergedFollowsTheRunsContract) {
  // Issue 9's contract: a diverged result carries its rows, and the run exits 1.
  const json entry = {{"status", "diverged"},
                      {"diverged", {{{"row", "64"}, {"epoch", 3}, {"step", 17}, {"loss", nullptr}}}},
                      {"data", json::object()}};
  const json r = compose_result("abc", kSpec, {{1, 0}, document(entry), ""}, kTiming);
  EXPECT_EQ(r["status"], "diverged");
  EXPECT_EQ(r["error"], "diverged: row 64, epoch 3, step 17, loss null");
  EXPECT_EQ(r["diverged"], entry["diverged"]);
}

TEST(ComposeResult, AFailedEntryKeepsItsOwnError) {
  const json entry = {{"status", "failed"}, {"error", "the loss is NaN at step 3"}};
  const json r = compose_result("abc", kSpec, {{1, 0}, document(entry), "attnlab: something else\n"}, kTiming);
  EXPECT_EQ(r["status"], "failed");
  EXPECT_EQ(r["error"], "the loss is NaN at step 3");
}

TEST(ComposeResult, OkButNonZeroExitIsAFailure) {
  const json entry = {{"status", "ok"}, {"data", json::object()}};
  const json r = compose_result("abc", kSpec, {{1, 0}, document(entry), "attnlab: failed: disk full\n"}, kTiming);
  EXPECT_EQ(r["status"], "failed");
  EXPECT_EQ(r["error"], "disk full");
}

}  // namespace
}  // namespace attnlab::sweep
