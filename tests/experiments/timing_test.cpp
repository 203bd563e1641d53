// timing (course script 16): wall-clock figures differ by nature
// (16_timing_attention_vs_lstm.course.txt and .torch113.txt disagree with
// each other), so this checks the course's layout and that every time is a
// real, positive measurement, not the values.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "experiments/course_run.hpp"
#include "experiments/registry.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::testing {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Timing, PrintsTheCoursesLayout) {
  const auto r = run_kind("timing", {{"lengths", {8, 16, 1000}}, {"batch", 2}, {"repeats", 2}});
  const auto lines = lines_of(r.text);
  ASSERT_EQ(lines.size(), 4u) << r.text;
  // the header line of 16_timing_attention_vs_lstm.course.txt, '%10s %14s %14s'
  EXPECT_EQ(lines[0], lines_of(course_text("16_timing_attention_vs_lstm.course.txt")).at(0));
  // rows '%10d %13.1fms %13.1fms': 42 characters, the length right-aligned in 10
  const std::regex row(R"( {0,9}\d{1,10} +\d+\.\dms +\d+\.\dms)");
  const char* lengths[] = {"         8", "        16", "      1000"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(std::regex_match(lines[i + 1], row)) << lines[i + 1];
    EXPECT_EQ(lines[i + 1].size(), 42u) << lines[i + 1];
    EXPECT_EQ(lines[i + 1].substr(0, 10), lengths[i]);
  }
  for (const auto& row_data : r.data.at("rows")) {
    EXPECT_GT(row_data.at("attention_seconds").get<double>(), 0.0);
    EXPECT_GT(row_data.at("lstm_seconds").get<double>(), 0.0);
  }
}

TEST(Timing, DefaultsAreTheCourses) {
  const auto loaded = experiments::load_spec(std::string(ATTNLAB_EXPERIMENTS_DIR) + "/timing.json");
  EXPECT_EQ(loaded.spec.at("lengths"), nlohmann::json({32, 128, 512}));
  EXPECT_EQ(loaded.spec.at("batch"), 8);
  EXPECT_EQ(loaded.spec.at("d_model"), 64);
  EXPECT_EQ(loaded.spec.at("n_heads"), 4);
  EXPECT_EQ(loaded.spec.at("repeats"), 10);
}

TEST(Timing, RefusesSpecsThatCannotRun) {
  EXPECT_THROW(run_kind("timing", {{"n_heads", 5}}), spec::SpecError);
  // the cost table's longest length is the limit
  EXPECT_THROW(run_kind("timing", {{"lengths", {8193}}}), spec::SpecError);
}

// The flash path holds no B·H·T² weights (8 GiB at T = 8192) and the LSTM no
// cache: the estimate at the longest length is the inputs, outputs and
// projections and heads' output, 6·B·T·C floats, plus fixed workspaces.
TEST(Timing, MemoryIsLinearInLength) {
  const auto loaded = experiments::check_spec({{"experiment", "timing"}}, "timing.json", {{"lengths", {8192}}});
  const double bytes = loaded.experiment->memory(loaded.spec, 1).bytes;
  const double linear = 6.0 * 8 * 8192 * 64 * sizeof(float);  // 101 MB
  EXPECT_GE(bytes, linear);
  EXPECT_LE(bytes, linear + 2.0 * (1 << 20));
}

}  // namespace
}  // namespace attnlab::testing
