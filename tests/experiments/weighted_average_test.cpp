// weighted_average (course script 02) against the course's printed table.
#include <gtest/gtest.h>

#include "experiments/course_run.hpp"

namespace attnlab::testing {
namespace {

TEST(WeightedAverage, PrintsTheCourseTableByteForByte) {
  // data/course/02_weighted_average.course.txt; PyTorch 1.13 prints the same
  // (02_weighted_average.torch113.txt).
  EXPECT_EQ(run_kind("weighted_average").text, course_text("02_weighted_average.course.txt"));
}

TEST(WeightedAverage, DataCarriesTheFloat32Results) {
  const auto data = run_kind("weighted_average").data;
  ASSERT_EQ(data.at("rows").size(), 3u);
  EXPECT_EQ(data["rows"][1]["result"], nlohmann::json({0.5, 0.875}));
  // 0.45·0 + 0.45·1 + 0.05·2 + 0.05·0.5 in float32: the float nearest 0.575
  EXPECT_EQ(data["rows"][2]["result"][1].get<double>(), static_cast<double>(0.575f));
}

}  // namespace
}  // namespace attnlab::testing
