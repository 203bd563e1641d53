// The chapter's trained tables against PyTorch 1.13. Layout and every figure
// that comes from plain arithmetic or seeded draws must match exactly; a
// trained accuracy must agree with what PyTorch prints for the same model
// and seed within what float32 summation order explains (PyTorch itself moves
// by 0.005-0.015 between BLAS thread counts, the course's README), and be
// in the same regime. PyTorch's figures: data/course/NN_*.torch113.txt and
// data/experiments/heads_torch.json (scripts/heads_reference.py).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "experiments/registry.hpp"
#include "support/golden.hpp"

namespace attnlab::testing {
namespace {

experiments::Report run_spec(const std::string& name) {
  const auto loaded = experiments::load_spec(std::string(ATTNLAB_EXPERIMENTS_DIR) + "/" + name + ".json");
  return loaded.experiment->run(loaded.spec, {2, nullptr});
}

std::string course_file(const std::string& name) { return course_output(name); }

constexpr double kAccuracyTolerance = 0.02;

TEST(TrainedTables, PositionsPrintsTheCourseTable) {
  // 0.5855 / 0.9995: the course and PyTorch 1.13 here print the same digits.
  EXPECT_EQ(run_spec("positions").text, course_file("13_positions_vs_none.course.txt"));
}

TEST(TrainedTables, BottleneckAgreesWithPyTorch) {
  const auto r = run_spec("bottleneck");
  const double torch[] = {0.5000, 0.5025, 0.5050, 0.9790};  // 01_bottleneck.torch113.txt
  const int hidden[] = {2, 4, 8, 64};
  ASSERT_EQ(r.data.at("rows").size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.data["rows"][i]["hidden_size"], hidden[i]);
    EXPECT_NEAR(r.data["rows"][i]["accuracy"].get<double>(), torch[i], kAccuracyTolerance) << hidden[i];
  }
  // The small states stay at chance to the digit, as in PyTorch and the course.
  EXPECT_EQ(r.text.substr(0, r.text.find("\n            64")),
            course_file("01_bottleneck.torch113.txt").substr(0, r.text.find("\n            64")));
}

TEST(TrainedTables, RnnVersusAttentionAgreesWithPyTorch) {
  const auto r = run_spec("rnn_vs_attention");
  const std::size_t params[] = {6722, 25538, 13666, 26370};         // exact, as the course prints
  const double torch[] = {0.6200, 0.9790, 0.9995, 1.0000};          // 18_rnn_vs_attention.torch113.txt
  const char* labels[] = {"plain RNN", "LSTM", "attention, 1 block", "attention, 2 blocks"};
  ASSERT_EQ(r.data.at("rows").size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const auto& row = r.data["rows"][i];
    EXPECT_EQ(row["model"], labels[i]);
    EXPECT_EQ(row["params"].get<std::size_t>(), params[i]);
    EXPECT_NEAR(row["accuracy"].get<double>(), torch[i], kAccuracyTolerance) << labels[i];
    EXPECT_GT(row["seconds"].get<double>(), 0.0);
  }
  const std::string course = course_file("18_rnn_vs_attention.course.txt");
  EXPECT_EQ(r.text.substr(0, r.text.find('\n') + 1), course.substr(0, course.find('\n') + 1));
}

TEST(TrainedTables, AttentionMapAgreesWithPyTorch) {
  const auto r = run_spec("attention_map");
  EXPECT_NEAR(r.data.at("accuracy").get<double>(), 0.8695, kAccuracyTolerance);  // 19_attention_map.torch113.txt
  // The sequence line and the map's header are exact (seeded data).
  const std::string course = course_file("19_attention_map.torch113.txt");
  const auto from = [](const std::string& s) { return s.substr(s.find("\nsequence"), 88); };
  EXPECT_EQ(from(r.text), from(course));
  // Position 0 (digit 5) attends to the later 5 at position 3, as in PyTorch's map (1.00).
  const auto& w = r.data.at("weights");
  EXPECT_GT(w[0][3].get<double>(), 0.9);
  for (const auto& row : w) {
    double sum = 0;
    for (const auto& v : row) sum += v.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

TEST(TrainedTables, HeadsCostNothingAndAgreeWithPyTorch) {
  const auto r = run_spec("heads");
  // The untrained part is script 07's table, digit for digit.
  EXPECT_EQ(r.text.substr(0, course_file("07_heads_differ.course.txt").size()),
            course_file("07_heads_differ.course.txt"));
  const auto torch = load_golden("experiments/heads_torch.json").at("rows");
  const auto& rows = r.data.at("rows");
  ASSERT_EQ(rows.size(), torch.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["heads"], torch[i]["heads"]);
    EXPECT_EQ(rows[i]["attention_params"].get<int>(), 4224);          // course script 06
    EXPECT_EQ(rows[i]["multiply_adds"], rows[0]["multiply_adds"]);   // heads are free
    EXPECT_NEAR(rows[i]["accuracy"].get<double>(), torch[i]["accuracy"].get<double>(), kAccuracyTolerance);
  }
  // 64 x 8 x (4 x 32^2 + 2 x 8 x 32): projections, scores and mixing.
  EXPECT_EQ(rows[0]["multiply_adds"].get<std::size_t>(), 2359296u);
}

TEST(TrainedTables, BlockPrintsTheCourseTable) {
  EXPECT_EQ(run_spec("block").text, course_file("17_block.course.txt"));
}

}  // namespace
}  // namespace attnlab::testing
