// The course's recurrent classifiers (script 18's Recurrent('rnn'|'lstm'),
// hidden 64) against PyTorch 1.13: initial weights bit for bit, then logits,
// loss and every gradient of one training batch within 1e-5 relative.
// Figures: data/models/{rnn,lstm}.json from scripts/make_model_goldens.py.
#include <gtest/gtest.h>

#include "models/recurrent_classifier.hpp"
#include "support/parity.hpp"

namespace attnlab::testing {
namespace {

void check_model(const std::string& file, models::Cell cell) {
  models::RecurrentClassifierConfig cfg;
  cfg.cell = cell;
  random::Generator unused(0);
  check_classifier_parity<models::RecurrentClassifier>(file, cfg, unused, CompareLogits::yes);
}

TEST(RecurrentClassifierParity, Lstm) { check_model("lstm.json", models::Cell::lstm); }

TEST(RecurrentClassifierParity, PlainRnn) { check_model("rnn.json", models::Cell::rnn); }

TEST(RecurrentClassifierParity, ParameterCountsAreTheCourses) {
  // Course script 18 prints 6722 (plain RNN) and 25538 (LSTM); a GRU has 3 gates.
  const std::pair<models::Cell, std::size_t> cases[] = {
      {models::Cell::rnn, 6722}, {models::Cell::lstm, 25538}, {models::Cell::gru, 320 + 3 * 64 * (32 + 64 + 2) + 130}};
  for (const auto& [cell, count] : cases) {
    random::Generator init(0);
    models::RecurrentClassifierConfig cfg;
    cfg.cell = cell;
    EXPECT_EQ(models::RecurrentClassifier(cfg, init, 2, 8).params.count(), count);
  }
}

TEST(RecurrentClassifierParity, RefusesHiddenSizeZero) {
  random::Generator init(0);
  models::RecurrentClassifierConfig cfg;
  cfg.hidden_size = 0;
  EXPECT_THROW(models::RecurrentClassifier(cfg, init, 2, 8), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::testing
