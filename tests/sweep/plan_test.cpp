// The plan: the Cartesian product in a stable order, every combination
// checked up front, and a config hash that names what a run computes.
#include <gtest/gtest.h>

#include "spec/spec_error.hpp"
#include "sweep/config_hash.hpp"
#include "sweep/plan.hpp"

namespace attnlab::sweep {
namespace {

using nlohmann::json;

const json kBottleneck = {{"experiment", "bottleneck"}, {"hidden_sizes", {2, 4}}};

std::string error_of(const json& doc, const std::vector<std::string>& args) {
  try {
    make_plan_from(doc, "b.json", args);
  } catch (const spec::SpecError& e) {
    return e.what();
  }
  return "";
}

TEST(Plan, IsTheProductWithTheLastAxisFastest) {
  const Plan p = make_plan_from(kBottleneck, "b.json", {"lr=1e-3,3e-3", "seed=range(0,3)", "epochs=1"});
  ASSERT_EQ(p.runs.size(), 6u);
  EXPECT_EQ(p.kind, "bottleneck");
  const std::vector<std::string> want = {"lr=0.001, seed=0", "lr=0.001, seed=1", "lr=0.001, seed=2",
                                         "lr=0.003, seed=0", "lr=0.003, seed=1", "lr=0.003, seed=2"};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(p.runs[i].index, i);
    EXPECT_EQ(describe(p, p.runs[i]), want[i]);  // the fixed epochs=1 is not swept
    EXPECT_EQ(p.runs[i].spec.at("epochs"), 1);
    EXPECT_EQ(p.runs[i].spec.at("cell"), "lstm");  // every default filled in
  }
  EXPECT_EQ(describe(p, p.runs[5], true), "lr=0.003, seed=2, epochs=1");
  EXPECT_EQ(group_keys(p), std::vector<std::string>{"lr"});  // seeds are samples, not tables
}

TEST(Plan, TakesTheSpecsSweepBlockAndLetsTheCommandLineReplaceAnAxis) {
  json doc = kBottleneck;
  doc["sweep"] = {{"seed", {0, 1, 2}}, {"cell", "lstm,gru"}};
  const Plan p = make_plan_from(doc, "b.json", {});
  ASSERT_EQ(p.runs.size(), 6u);
  EXPECT_EQ(p.axes[0].key, "cell");  // the block's keys, sorted
  EXPECT_EQ(describe(p, p.runs[1]), "cell=lstm, seed=1");
  const Plan q = make_plan_from(doc, "b.json", {"seed=7"});
  ASSERT_EQ(q.runs.size(), 2u);
  EXPECT_EQ(q.runs[1].spec.at("seed"), 7);
  EXPECT_EQ(q.runs[1].spec.at("cell"), "gru");
  EXPECT_FALSE(q.runs[0].spec.contains("sweep"));
}

TEST(Plan, RefusesEveryBadCombinationBeforeAnyRunNamingItAndTheRule) {
  const std::string e = error_of(kBottleneck, {"seed=0,1", "lr=0.001,0"});
  EXPECT_NE(e.find("2 of the sweep's 4 runs would be refused"), std::string::npos) << e;
  EXPECT_NE(e.find("run 1 (seed=0, lr=0): b.json: at /lr: 0 is not allowed for \"lr\""), std::string::npos) << e;
  EXPECT_NE(e.find("run 3 (seed=1, lr=0)"), std::string::npos) << e;
  EXPECT_NE(e.find("a number > 0"), std::string::npos) << e;
}

TEST(Plan, RefusesAKindsOwnRuleToo) {
  const json doc = {{"experiment", "positions"}};
  const std::string e = error_of(doc, {"n_heads=3,4"});
  EXPECT_NE(e.find("run 0 (n_heads=3)"), std::string::npos) << e;
  EXPECT_EQ(e.find("run 1"), std::string::npos) << e;
}

TEST(Plan, RefusesUnknownAndRepeatedKeysAndDuplicateRuns) {
  EXPECT_NE(error_of(kBottleneck, {"seeds=0,1"}).find("unknown key \"seeds\" for experiment \"bottleneck\" (did you "
                                                       "mean \"seed\"?)"),
            std::string::npos);
  EXPECT_NE(error_of(kBottleneck, {"seed=0", "seed=1"}).find("\"seed\" is given twice"), std::string::npos);
  // 0.001 and 1e-3 are one number, so one run.
  EXPECT_NE(error_of(kBottleneck, {"lr=0.001,1e-3"}).find("runs 0 (lr=0.001) and 1 (lr=0.001) compute the same spec"),
            std::string::npos);
  json doc = kBottleneck;
  doc["sweep"] = {{"sede", {1}}};
  EXPECT_NE(error_of(doc, {}).find("b.json: at /sweep/sede: unknown key"), std::string::npos);
  EXPECT_NE(error_of(kBottleneck, {"seed=range(0,400)", "lr=range(1,400)"}).find("the sweep has 159600 runs"),
            std::string::npos);
}

TEST(ConfigHash, NamesWhatIsComputedNotHowItWasWritten) {
  const auto hash_of = [](const json& doc, const std::vector<std::string>& args) {
    return make_plan_from(doc, "b.json", args).runs.at(0).hash;
  };
  const std::string h = hash_of(kBottleneck, {"seed=1"});
  EXPECT_EQ(h.size(), 16u);
  // A default written out, an integer learning rate written as 1 or 1.0: the same run.
  json explicit_default = kBottleneck;
  explicit_default["cell"] = "lstm";
  EXPECT_EQ(hash_of(explicit_default, {"seed=1"}), h);
  EXPECT_EQ(hash_of(kBottleneck, {"lr=1"}), hash_of(kBottleneck, {"lr=1.0"}));
  // Any change of what is computed: another run.
  EXPECT_NE(hash_of(kBottleneck, {"seed=2"}), h);
  EXPECT_NE(hash_of(kBottleneck, {"seed=1", "epochs=9"}), h);
  // Pinned, because existing sweep folders are named by it: FNV-1a 64 then
  // fmix64 of the compact dump, computed independently in Python
  // (x ^= byte; x *= 1099511628211 mod 2^64; then MurmurHash3's fmix64).
  EXPECT_EQ(config_hash(json{{"a", 1}}), "c81650bcc330d430");
  EXPECT_EQ(config_hash(json::object()), "adee1081a7649365");
}

TEST(SeedKeys, AreSeedAndDataSeed) {
  EXPECT_TRUE(is_seed_key("seed"));
  EXPECT_TRUE(is_seed_key("data_seed"));
  EXPECT_FALSE(is_seed_key("lr"));
}

}  // namespace
}  // namespace attnlab::sweep
