// Every output format on a hand-made sweep, byte for byte.
#include <gtest/gtest.h>

#include "sweep/formats.hpp"
#include "sweep/sweep_fixtures.hpp"

namespace attnlab::sweep {
namespace {

using nlohmann::json;

std::string rendered(const std::string& format, bool times = false) {
  return render(format, testing::hand_plan(), testing::hand_states(), times);
}

TEST(Formats, TextIsTheKindsLayoutWithMeanStdAndN) {
  EXPECT_EQ(rendered("text"),
            "== lr=0.001 ==\n"
            "hidden size         accuracy  n\n"
            "          2  0.6000 ± 0.1000  3\n"
            "         64  0.9000 ± 0.1000  3\n"
            "\n"
            "== lr=0.003 ==\n"
            "hidden size  accuracy  n\n"
            "          2    0.4000  1\n"  // one sample: no deviation to show
            "         64    0.9500  1\n");
}

TEST(Formats, TimesOnlyWhenAskedFor) {
  const std::string t = rendered("text", true);
  EXPECT_NE(t.find("hidden size         accuracy      time  n\n"), std::string::npos) << t;
  EXPECT_NE(t.find("          2  0.6000 ± 0.1000  12s ± 1s  3\n"), std::string::npos) << t;
}

TEST(Formats, CsvIsLongAndFlatOneLinePerRunAndRow) {
  EXPECT_EQ(rendered("csv"),
            "run,status,params.lr,params.seed,params.epochs,row,metrics.accuracy\n"
            "h0,ok,0.001,0,1,2,0.5\n"
            "h0,ok,0.001,0,1,64,0.9\n"
            "h1,ok,0.001,1,1,2,0.6\n"
            "h1,ok,0.001,1,1,64,0.8\n"
            "h2,ok,0.001,2,1,2,0.7\n"
            "h2,ok,0.001,2,1,64,1\n"
            "h3,ok,0.003,0,1,2,0.4\n"
            "h3,ok,0.003,0,1,64,0.95\n"
            "h4,failed,0.003,1,1,,\n"
            "h5,pending,0.003,2,1,,\n");
  EXPECT_NE(rendered("csv", true).find("row,metrics.accuracy,metrics.seconds\nh0,ok,0.001,0,1,2,0.5,11\n"),
            std::string::npos);
}

TEST(Formats, JsonlIsOneObjectPerRun) {
  const std::string out = rendered("jsonl");
  std::vector<json> lines;
  std::size_t start = 0, nl;
  while ((nl = out.find('\n', start)) != std::string::npos) {
    lines.push_back(json::parse(out.substr(start, nl - start)));
    start = nl + 1;
  }
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0]["run"], "h0");
  EXPECT_EQ(lines[0]["params"], json({{"lr", 0.001}, {"seed", 0}, {"epochs", 1}}));
  EXPECT_EQ(lines[0]["rows"][1], json({{"row", "64"}, {"metrics", {{"accuracy", 0.9}}}}));
  EXPECT_EQ(lines[4]["status"], "failed");
  EXPECT_EQ(lines[4]["error"], "out of memory");
  EXPECT_EQ(lines[5]["status"], "pending");
}

TEST(Formats, JsonHoldsTheTablesAndTheFailures) {
  const json j = json::parse(rendered("json"));
  EXPECT_EQ(j["runs"], json({{"total", 6}, {"done", 4}, {"failed", 1}, {"pending", 1}}));
  ASSERT_EQ(j["tables"].size(), 2u);
  EXPECT_EQ(j["tables"][0]["params"], json({{"lr", 0.001}}));
  EXPECT_EQ(j["tables"][0]["rows"][0]["n"], 3);
  EXPECT_NEAR(j["tables"][0]["rows"][0]["metrics"]["accuracy"]["std"].get<double>(), 0.1, 1e-15);
  EXPECT_TRUE(j["tables"][1]["rows"][0]["metrics"]["accuracy"]["std"].is_null());  // n = 1
  EXPECT_EQ(j["failed"][0]["run"], "h4");
}

TEST(Formats, MarkdownTables) {
  EXPECT_EQ(rendered("markdown"),
            "### lr=0.001\n\n"
            "| hidden size | accuracy | n |\n"
            "|---:|---:|---:|\n"
            "| 2 | 0.6000 ± 0.1000 | 3 |\n"
            "| 64 | 0.9000 ± 0.1000 | 3 |\n"
            "\n### lr=0.003\n\n"
            "| hidden size | accuracy | n |\n"
            "|---:|---:|---:|\n"
            "| 2 | 0.4000 | 1 |\n"
            "| 64 | 0.9500 | 1 |\n");
}

TEST(Formats, AGroupWithNothingFinishedSaysSo) {
  auto states = testing::hand_states();
  states[3] = {Status::failed, {{"status", "failed"}, {"error", "x"}}};
  const std::string t = render("text", testing::hand_plan(), states, false);
  EXPECT_NE(t.find("== lr=0.003 ==\nno finished run (2 failed, 1 not run)\n"), std::string::npos) << t;
}

TEST(FormatNumber, IntegersPlainOthersShortestRoundTrip) {
  EXPECT_EQ(format_number(6722), "6722");
  EXPECT_EQ(format_number(0.9815000295639038), "0.9815000295639038");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(std::nan("")), "nan");
  EXPECT_EQ(format_cell({"a", "a", "%.2f"}, {0.5, 0.25, 2}), "0.50 ± 0.25");
  EXPECT_EQ(format_cell({"a", "a", "%.2f"}, {0.5, 0, 0}), "-");
}

}  // namespace
}  // namespace attnlab::sweep
