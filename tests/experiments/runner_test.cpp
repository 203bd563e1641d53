// Running several specs: statuses, --keep-going, the JSON contract scripts
// and `attnlab sweep` read, and how trained tables show a diverged row.
#include <gtest/gtest.h>

#include <stdexcept>

#include "experiments/common_params.hpp"
#include "experiments/registry.hpp"
#include "experiments/runner.hpp"

namespace attnlab::testing {
namespace {

using nlohmann::json;

// A kind that fails while running, as an out-of-memory or I/O error would.
const experiments::Experiment& failing_kind() {
  static const experiments::Experiment e{
      .name = "failing",
      .summary = "throws while running",
      .course_order = 0,
      .params = {experiments::seed_param()},
      .check = nullptr,
      .run = [](const json&, const experiments::RunContext&) -> experiments::Report {
        throw std::runtime_error("disk on fire");
      },
      .memory = [](const json&, int) { return experiments::MemoryEstimate{1024, 1, "", ""}; }};
  return e;
}

experiments::LoadedSpec spec(const std::string& kind, const json& overrides = json::object()) {
  return experiments::check_spec({{"experiment", kind}}, "experiments/" + kind + ".json", overrides);
}

struct Events {
  std::vector<std::string> lines;
  experiments::RunContext ctx() {
    experiments::RunContext c;
    c.progress = [this](const std::string& l) { lines.push_back("progress: " + l); };
    c.warn = [this](const std::string& l) { lines.push_back("warn: " + l); };
    return c;
  }
};

TEST(Runner, WithoutKeepGoingTheFirstFailureStopsTheRun) {
  Events ev;
  std::vector<experiments::LoadedSpec> specs = {{"bad.json", &failing_kind(), {{"seed", 0}}}, spec("sqrt_d")};
  try {
    experiments::run_all(specs, ev.ctx());
    FAIL() << "no failure";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "bad.json: failing: disk on fire");
  }
  EXPECT_EQ(ev.lines, (std::vector<std::string>{"progress: running failing (bad.json)"}));  // sqrt_d never ran
}

TEST(Runner, KeepGoingReportsAFailureAtOnceAndRunsTheRest) {
  Events ev;
  std::vector<experiments::LoadedSpec> specs = {{"bad.json", &failing_kind(), {{"seed", 0}}}, spec("sqrt_d")};
  const auto results = experiments::run_all(specs, ev.ctx(), {.keep_going = true});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, experiments::Status::failed);
  EXPECT_EQ(results[0].error, "disk on fire");
  EXPECT_EQ(results[1].status, experiments::Status::ok);
  // The failure is told before the next spec starts, not at the end.
  EXPECT_EQ(ev.lines, (std::vector<std::string>{"progress: running failing (bad.json)",
                                                "warn: failed: bad.json: failing: disk on fire",
                                                "progress: running sqrt_d (experiments/sqrt_d.json)"}));
  EXPECT_FALSE(experiments::all_ok(results));
  // The text keeps the other table, under its heading as for any several specs.
  const std::string text = experiments::render_text(results);
  EXPECT_EQ(text.find("== failing"), std::string::npos);
  EXPECT_EQ(text.find("== sqrt_d: experiments/sqrt_d.json ==\n"), 0u);
  EXPECT_NE(text.find("0.9167"), std::string::npos);
  const json doc = experiments::render_json(results);
  EXPECT_EQ(doc["results"][0]["status"], "failed");
  EXPECT_EQ(doc["results"][0]["error"], "disk on fire");
  EXPECT_EQ(doc["results"][1]["status"], "ok");
  EXPECT_FALSE(doc["results"][1].contains("error"));
  EXPECT_FALSE(doc["results"][1].contains("diverged"));
  EXPECT_GT(doc["results"][1]["memory_estimate_bytes"].get<double>(), 0);
}

TEST(Runner, ADivergedRowIsNamedInTheTextAndTheJson) {
  Events ev;
  const auto results = experiments::run_all({spec("positions", {{"lr", 1000}, {"epochs", 2}, {"n_train", 1000}})}, ev.ctx());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, experiments::Status::diverged);
  EXPECT_FALSE(experiments::all_ok(results));
  const std::string& text = results[0].report.text;
  EXPECT_NE(text.find("no positions               diverged\n"), std::string::npos) << text;
  EXPECT_NE(text.find("with positions             diverged\n"), std::string::npos) << text;
  const json doc = experiments::render_json(results);
  const json& r = doc["results"][0];
  EXPECT_EQ(r["status"], "diverged");
  ASSERT_EQ(r["diverged"].size(), 2u);
  EXPECT_EQ(r["diverged"][0]["row"], "no positions");
  EXPECT_EQ(r["diverged"][0]["epoch"], 1);
  EXPECT_GT(r["diverged"][0]["step"].get<int>(), 1);
  EXPECT_EQ(r["diverged"][0]["loss"], "nan");
  const json& row = r["data"]["rows"][0];
  EXPECT_EQ(row["status"], "diverged");
  EXPECT_TRUE(row["accuracy"].is_null());
  EXPECT_EQ(row["diverged"]["step"], r["diverged"][0]["step"]);
  // On stderr at once, with the file, the row, the epoch and the step.
  bool told = false;
  for (const auto& l : ev.lines)
    told = told || (l.find("warn: experiments/positions.json: positions: row \"no positions\" diverged at epoch 1, "
                           "step ") == 0);
  EXPECT_TRUE(told);
}

TEST(Runner, ARisingLossIsAWarningAndAFlag) {
  Events ev;
  const auto results = experiments::run_all({spec("positions", {{"lr", 10}, {"epochs", 3}, {"n_train", 1000}})}, ev.ctx());
  EXPECT_EQ(results[0].status, experiments::Status::ok);  // a warning, not a failure
  const json r = experiments::render_json(results)["results"][0];
  ASSERT_TRUE(r.contains("loss_rose"));
  EXPECT_EQ(r["loss_rose"][0]["row"], "no positions");
  EXPECT_GT(r["loss_rose"][0]["last_epoch_loss"].get<double>(), r["loss_rose"][0]["first_loss"].get<double>());
  EXPECT_EQ(r["data"]["rows"][0]["loss_rose"], true);
  EXPECT_EQ(r["data"]["rows"][0]["epoch_losses"].size(), 3u);
  int warnings = 0;
  for (const auto& l : ev.lines) warnings += l.find("warn: warning: experiments/positions.json: positions: row") == 0;
  EXPECT_EQ(warnings, 2);
}

// Every trained kind: a diverged row shows "diverged" where its accuracy
// would be and carries its record; a normal one carries its epochs' losses.
TEST(Runner, EveryTrainedKindShowsDivergedRowsAndRecordsEpochs) {
  const json small = {{"n_train", 300}, {"n_val", 100}, {"epochs", 2}};
  struct Kind {
    std::string name;
    json extra;
  };
  for (const Kind& k : std::vector<Kind>{{"bottleneck", {{"hidden_sizes", {8}}}},
                                         {"heads", {{"heads", {2}}}},
                                         {"positions", {{"variants", {"learned"}}}},
                                         {"rnn_vs_attention", {{"recurrent", {"rnn"}}, {"blocks", {1}}}},
                                         {"attention_map", json::object()}}) {
    SCOPED_TRACE(k.name);
    json o = small;
    o.update(k.extra);
    const auto fine = experiments::run_all({spec(k.name, o)}, {});
    EXPECT_EQ(fine[0].status, experiments::Status::ok);
    const json& data = fine[0].report.data;
    const json& row = data.contains("rows") ? data["rows"][0] : data;
    EXPECT_EQ(row["status"], "ok");
    EXPECT_EQ(row["epoch_losses"].size(), 2u);
    EXPECT_TRUE(row["accuracy"].is_number());

    o["lr"] = 1e6;
    const auto bad = experiments::run_all({spec(k.name, o)}, {});
    EXPECT_EQ(bad[0].status, experiments::Status::diverged);
    EXPECT_NE(bad[0].report.text.find("diverged"), std::string::npos) << bad[0].report.text;
    EXPECT_EQ(bad[0].report.text.find("nan"), std::string::npos) << bad[0].report.text;
    const json& bad_data = bad[0].report.data;
    const json& bad_row = bad_data.contains("rows") ? bad_data["rows"][0] : bad_data;
    EXPECT_EQ(bad_row["status"], "diverged");
    EXPECT_TRUE(bad_row["accuracy"].is_null());
    EXPECT_FALSE(bad[0].report.diverged.empty());
  }
}

}  // namespace
}  // namespace attnlab::testing
