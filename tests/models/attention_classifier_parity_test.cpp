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
  models::AttentionClassifierConfig cfg;
  cfg.use_positions = use_positions;
  cfg.n_heads = n_heads;
  random::Generator unused(0);
  check_classifier_parity<models::AttentionClassifier>(file, cfg, unused, CompareLogits::yes);
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
