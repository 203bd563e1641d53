// Every trained table prints the same text for -j 1, 2 and 4, and a row
// prints the same wherever it stands in its table and however often it is
// repeated. One or two epochs keep the suite quick; the same holds for the full
// course sizes, which .ci/run checks by running the whole chapter 20 times
// (scripts/check_chapter_repeatedly.sh). Wall times differ by nature and are
// masked; everything else is compared byte for byte.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/registry.hpp"

namespace attnlab::testing {
namespace {

// The table's text with every wall time ("14s", "0.8ms") replaced by "T".
std::string without_times(const std::string& text) {
  static const std::regex time(R"( +[0-9]+(\.[0-9]+)?(s|ms)\b)");
  return std::regex_replace(text, time, " T");
}

std::string run_text(const std::string& kind, nlohmann::json overrides, int jobs) {
  if (!overrides.contains("epochs")) overrides["epochs"] = 2;
  const auto loaded =
      experiments::load_spec(std::string(ATTNLAB_EXPERIMENTS_DIR) + "/" + kind + ".json", overrides);
  return without_times(loaded.experiment->run(loaded.spec, experiments::RunContext{jobs, nullptr}).text);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void expect_same_for_every_jobs(const std::string& kind, const nlohmann::json& overrides) {
  const std::string one = run_text(kind, overrides, 1);
  ASSERT_FALSE(one.empty());
  EXPECT_EQ(run_text(kind, overrides, 2), one) << kind << " with -j 2";
  EXPECT_EQ(run_text(kind, overrides, 4), one) << kind << " with -j 4";
}

TEST(Jobs, BottleneckSameTextForEveryJobsAndPosition) {
  // hidden 8 three times, in first, middle and last place
  const nlohmann::json o = {{"hidden_sizes", {8, 2, 8, 64, 8}}};
  expect_same_for_every_jobs("bottleneck", o);
  const auto rows = lines(run_text("bottleneck", o, 2));
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[1], rows[3]);
  EXPECT_EQ(rows[1], rows[5]);
}

TEST(Jobs, RnnVersusAttentionSameTextForEveryJobsAndRepeatedRows) {
  // The issue's case: three identical 1-block rows once printed 1.0000, 0.9990, 0.9990.
  const nlohmann::json o = {{"recurrent", {"rnn", "lstm"}}, {"blocks", {1, 2, 1, 1}}, {"epochs", 1}};
  expect_same_for_every_jobs("rnn_vs_attention", o);
  const auto rows = lines(run_text("rnn_vs_attention", o, 4));
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[3], rows[5]);
  EXPECT_EQ(rows[3], rows[6]);
  // A row alone prints what it prints among others.
  const auto alone =
      lines(run_text("rnn_vs_attention", {{"recurrent", nlohmann::json::array()}, {"blocks", {2}}, {"epochs", 1}}, 1));
  ASSERT_EQ(alone.size(), 2u);
  EXPECT_EQ(alone[1], rows[4]);
}

TEST(Jobs, HeadsSameTextForEveryJobsAndOrder) {
  const nlohmann::json o = {{"heads", {2, 8, 2}}};
  expect_same_for_every_jobs("heads", o);
  const auto rows = lines(run_text("heads", o, 2));
  const auto reversed = lines(run_text("heads", {{"heads", {8, 2}}}, 2));
  ASSERT_GE(rows.size(), 4u);
  const std::size_t first_row = rows.size() - 5;  // header, 3 rows, blank, footnote
  EXPECT_EQ(rows[first_row], rows[first_row + 2]);
  EXPECT_EQ(rows[first_row + 1], reversed[reversed.size() - 4]);
}

TEST(Jobs, PositionsSameTextForEveryJobsAndOrder) {
  expect_same_for_every_jobs("positions", {{"variants", {"learned", "none", "learned"}}});
  const auto rows = lines(run_text("positions", {{"variants", {"learned", "none", "learned"}}}, 4));
  const auto course_order = lines(run_text("positions", {{"variants", {"none", "learned"}}}, 1));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1], rows[3]);
  EXPECT_EQ(rows[1], course_order[2]);
  EXPECT_EQ(rows[2], course_order[1]);
}

TEST(Jobs, AttentionMapSameTextForEveryJobs) { expect_same_for_every_jobs("attention_map", nlohmann::json::object()); }

}  // namespace
}  // namespace attnlab::testing
