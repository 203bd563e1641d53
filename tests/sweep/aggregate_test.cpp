// Aggregation: groups by the non-seed swept keys, mean ± sample std with n,
// from each kind's table (or its data's scalars).
#include <gtest/gtest.h>

#include <cmath>

#include "sweep/aggregate.hpp"
#include "sweep/sweep_fixtures.hpp"

namespace attnlab::sweep {
namespace {

using nlohmann::json;

TEST(Summarise, IsTheMeanAndTheSampleStandardDeviation) {
  // 1, 2, 3, 4: mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5; 5 / (n - 1) = 5/3.
  const Summary s = summarise({1, 2, 3, 4});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(5.0 / 3.0));
  EXPECT_TRUE(std::isnan(summarise({7}).std));  // n - 1 = 0: undefined, not 0
  EXPECT_EQ(summarise({}).n, 0u);
}

TEST(Aggregate, OneTablePerNonSeedCombination) {
  const auto groups = aggregate(testing::hand_plan(), testing::hand_states(), false);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].params, (std::vector<std::pair<std::string, json>>{{"lr", 0.001}}));
  EXPECT_EQ(groups[0].ok, 3u);
  EXPECT_EQ(groups[1].ok, 1u);
  EXPECT_EQ(groups[1].failed, 1u);
  EXPECT_EQ(groups[1].pending, 1u);
  // The time column is a wall-clock figure: left out unless asked for.
  ASSERT_EQ(groups[0].layout.columns.size(), 1u);
  EXPECT_EQ(groups[0].layout.label_header, "hidden size");
  ASSERT_EQ(groups[0].rows.size(), 2u);
  EXPECT_EQ(groups[0].rows[0].label, "2");
  EXPECT_EQ(groups[0].rows[0].n, 3u);
  EXPECT_NEAR(groups[0].rows[0].cells[0].mean, 0.6, 1e-15);  // (0.5 + 0.6 + 0.7) / 3
  EXPECT_NEAR(groups[0].rows[0].cells[0].std, 0.1, 1e-15);   // sqrt((0.01 + 0 + 0.01) / 2)
  EXPECT_NEAR(groups[0].rows[1].cells[0].mean, 0.9, 1e-15);
  EXPECT_EQ(groups[1].rows[0].n, 1u);
  const auto timed = aggregate(testing::hand_plan(), testing::hand_states(), true);
  ASSERT_EQ(timed[0].layout.columns.size(), 2u);
  EXPECT_DOUBLE_EQ(timed[0].rows[0].cells[1].mean, 12.0);
}

TEST(Aggregate, WithoutSweptKeysIsOneTable) {
  Plan p = testing::hand_plan();
  p.axes[0].values = {0.001};  // lr fixed: only seeds vary
  const auto groups = aggregate(p, testing::hand_states(), false);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(groups[0].params.empty());
  EXPECT_EQ(groups[0].rows[0].n, 4u);
}

TEST(TableOf, FallsBackToTheNumericScalarsOfData) {
  // A kind without a table of its own (block): its numbers, not its shapes.
  const json result = {{"data", {{"parameters", 12800}, {"out_sum", -1.5}, {"in_shape", {2, 8, 32}},
                                 {"seconds", 0.25}, {"ok", true}}}};
  const report::Table t = table_of(result);
  ASSERT_EQ(t.columns.size(), 3u);
  EXPECT_EQ(t.columns[0].key, "out_sum");  // data's keys in their sorted order
  EXPECT_EQ(t.columns[1].key, "parameters");
  EXPECT_EQ(t.columns[2].key, "seconds");
  EXPECT_TRUE(t.columns[2].timing);
  ASSERT_EQ(t.labels.size(), 1u);
  EXPECT_EQ(t.values[0], (std::vector<double>{-1.5, 12800, 0.25}));
  EXPECT_TRUE(table_of(json{{"data", {{"shape", {1, 2}}}}}).columns.empty());
}

TEST(Table, RoundTripsThroughJsonAndRefusesABadOne) {
  const json j = testing::result_with(0.5, 0.9, 3)["table"];
  EXPECT_EQ(report::to_json(report::table_from_json(j)), j);
  json bad = j;
  bad["rows"][0]["values"] = {1};  // one value for two columns
  EXPECT_THROW(report::table_from_json(bad), std::invalid_argument);
  bad = j;
  bad.erase("columns");
  EXPECT_THROW(report::table_from_json(bad), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::sweep
