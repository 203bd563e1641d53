// The course's positions model (script 13; script 19 with one head) against PyTorch 1.13: initial
// weights bit for bit, then the logits, loss and every parameter gradient of
// one training batch within 1e-5 relative. All figures come from
// data/models/positions_*.json and attention_map.json, written by
// scripts/make_model_goldens.py.
#include <gtest/gtest.h>

#include "models/attention_classifier.hpp"
#include "support/parity.hpp"

namespace attnlab::testing {
namespace {

void check_model(const std::string& file, bool use_positions, int n_heads = 4) {
  const auto golden = load_golden("models/" + file);
  models::AttentionClassifierConfig cfg;
  cfg.use_positions = use_positions;
  cfg.n_heads = n_heads;
  random::Generator init(0);
  const auto& batch = golden.at("batch");
  const int B = batch.at("B"), T = batch.at("T");
  models::AttentionClassifier model(cfg, init, B, T);
  expect_same_layout(model.params, golden);
  expect_init_bitwise(model.params, golden);

  const auto tokens = batch.at("tokens").get<std::vector<std::int32_t>>();
  const auto labels = batch.at("labels").get<std::vector<std::int32_t>>();
  random::Generator unused(0);
  model.params.zero_grad();
  const float loss = model.train_step(tokens.data(), labels.data(), B, unused);
  EXPECT_NEAR(loss, golden.at("loss").get<double>(), 1e-5 * golden.at("loss").get<double>());
  std::vector<float> logits(static_cast<std::size_t>(B) * 2);
  model.logits(tokens.data(), B, logits.data());
  expect_tensor_close("logits", logits.data(), as_floats(golden.at("logits")), 1e-5);
  expect_grads_close(model.params, golden, 1e-5);
}

TEST(AttentionClassifierParity, WithLearnedPositions) { check_model("positions_learned.json", true); }

TEST(AttentionClassifierParity, WithoutPositions) { check_model("positions_none.json", false); }

// Script 19's `Simple`: the same model with one head of 32.
TEST(AttentionClassifierParity, OneHeadAttentionMapModel) { check_model("attention_map.json", true, 1); }

TEST(AttentionClassifierParity, CountsTheCourseParameters) {
  random::Generator init(0);
  models::AttentionClassifier model({}, init, 4, 8);
  // tok 10·32 + pos 16·32 + attention 4224 (course script 06) + norm 64 + head 66.
  EXPECT_EQ(model.params.count(), 5186u);
}

TEST(AttentionClassifierParity, RefusesHeadsThatDoNotDivideTheWidth) {
  random::Generator init(0);
  models::AttentionClassifierConfig cfg;
  cfg.n_heads = 3;
  try {
    models::AttentionClassifier model(cfg, init, 4, 8);
    FAIL() << "3 heads cannot split 32 channels";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("32"), std::string::npos) << what;
    EXPECT_NE(what.find("3"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace attnlab::testing
