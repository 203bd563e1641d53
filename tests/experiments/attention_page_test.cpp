// attention_page (the attention page, data/sources/attention_page.txt): the page's printed outputs line for line
// (data/experiments/attention_page.txt: the page's nine outputs in order, then
// the two step checks under "beyond the page"), and the step checks staying
// True for other sizes, the d_model=64 n_heads=8 steps=40 depth=3
// among them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "experiments/course_run.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::testing {
namespace {

std::string data_text(const std::string& name) {
  std::ifstream in(std::string(ATTNLAB_DATA_DIR) + "/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AttentionPage, PrintsThePageLineForLine) {
  const std::string want = data_text("experiments/attention_page.txt");
  ASSERT_FALSE(want.empty());
  const auto r = run_kind("attention_page");
  EXPECT_EQ(r.text, want);
  EXPECT_NEAR(r.data.at("by_hand").at("output").get<double>(), 13.3024, 5e-5);
  EXPECT_EQ(r.data.at("heads").at("parameter_tensors").get<int>(), 2);  // no biases: in_proj_weight, out_proj.weight
}

TEST(AttentionPage, StepChecksStayTrueForOtherSizes) {
  for (const auto& sizes : {nlohmann::json{{"d_model", 64}, {"n_heads", 8}, {"steps", 40}, {"depth", 3}},
                            nlohmann::json{{"d_model", 12}, {"n_heads", 3}, {"d_ff", 7}, {"steps", 17}, {"depth", 2}},
                            nlohmann::json{{"d_model", 5}, {"n_heads", 5}, {"steps", 1}, {"depth", 0}},
                            nlohmann::json{{"d_model", 32}, {"n_heads", 1}, {"d_ff", 64}, {"steps", 64}, {"seed", 7}}}) {
    SCOPED_TRACE(sizes.dump());
    const auto r = run_kind("attention_page", sizes);
    EXPECT_TRUE(r.data.at("layer_step_equals_forward").get<bool>());
    EXPECT_TRUE(r.data.at("block_step_equals_forward").get<bool>());
    EXPECT_TRUE(r.data.at("encoder_step_equals_forward").get<bool>());
    const std::string tail = "beyond the page\nblock step = forward: True\nencoder step = forward: True\n";
    EXPECT_EQ(r.text.substr(r.text.size() - tail.size()), tail);
    const std::string C = std::to_string(sizes.at("d_model").get<int>());
    EXPECT_NE(r.text.find("(4, " + C + ")\n4\nTrue\n(4, " + C + ") 12\n"), std::string::npos) << r.text;
  }
}

TEST(AttentionPage, RefusesHeadsThatDoNotDivideTheWidth) {
  try {
    run_kind("attention_page", {{"d_model", 10}, {"n_heads", 4}});
    FAIL() << "expected a SpecError";
  } catch (const spec::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("n_heads 4 does not divide d_model 10"), std::string::npos) << e.what();
  }
}

TEST(AttentionPage, RefusesStepChecksTooBigToRunWithTheirEstimate) {
  // the largest sizes each parameter allows: the encoder's forward over every
  // prefix would take hours; refused before any work, naming the estimate
  try {
    run_kind("attention_page", {{"d_model", 512}, {"n_heads", 8}, {"d_ff", 4096}, {"steps", 512}, {"depth", 24}});
    FAIL() << "expected a SpecError";
  } catch (const spec::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("steps 512 with d_model 512, d_ff 4096 and depth 24 needs about 3.5e+13 "
                                         "multiply-adds for the step checks (at most 2e+11"),
              std::string::npos)
        << e.what();
  }
  // a stack inside the budget (about 4e9 multiply-adds) still runs its checks
  const auto r = run_kind("attention_page", {{"d_model", 64}, {"n_heads", 8}, {"d_ff", 256}, {"steps", 128}, {"depth", 4}});
  EXPECT_TRUE(r.data.at("encoder_step_equals_forward").get<bool>());
}

}  // namespace
}  // namespace attnlab::testing
