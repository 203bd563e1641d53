// Script 18's AttentionClassifier (1 and 2 blocks) against PyTorch 1.13: initial
// weights bit for bit; then, with the dropout masks drawn from the same
// generator state PyTorch's training batch used, the loss and every
// parameter gradient within 1e-5 relative.
// Figures: data/models/attention_{1block,2blocks}.json from scripts/make_model_goldens.py.
#include <gtest/gtest.h>

#include "data/loader_order.hpp"
#include "models/transformer_classifier.hpp"
#include "support/parity.hpp"

namespace attnlab::testing {
namespace {

void check_blocks(const std::string& file, int blocks) {
  models::TransformerClassifierConfig cfg;
  cfg.n_blocks = blocks;
  // PyTorch seeded 0, drew the loader's order (4 words), then ran the batch.
  random::Generator g(0);
  data::shuffled_epoch_order(g, 8000);
  check_classifier_parity<models::TransformerClassifier>(file, cfg, g, CompareLogits::no);
}

TEST(TransformerClassifierParity, OneBlockWithDropout) { check_blocks("attention_1block.json", 1); }

TEST(TransformerClassifierParity, TwoBlocksWithDropout) { check_blocks("attention_2blocks.json", 2); }

TEST(TransformerClassifierParity, ParameterCountsAreTheCourses) {
  // Course script 18 prints 13666 (one block) and 26370 (two); script 17 12704 per block.
  for (const auto& [blocks, count] : {std::pair{1, 13666u}, std::pair{2, 26370u}}) {
    random::Generator init(0);
    models::TransformerClassifierConfig cfg;
    cfg.n_blocks = blocks;
    EXPECT_EQ(models::TransformerClassifier(cfg, init, 2, 8).params.count(), count);
  }
  EXPECT_EQ(kernels::pre_norm_block_param_count(32, 128), 12704u);
}

}  // namespace
}  // namespace attnlab::testing
