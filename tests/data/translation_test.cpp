// The translation task family. Figures come from PyTorch 1.13 via
// scripts/translation_models.py goldens (data/data/translation.json), which
// runs the twin's make_translation on torch.Generator.
#include <gtest/gtest.h>

#include <stdexcept>

#include "data/translation.hpp"
#include "random/golden_calls.hpp"

namespace attnlab::data {
namespace {

TEST(Translation, MatchesPyTorchTwinDrawForDraw) {
  const auto golden = testing::load_golden("data/translation.json");
  ASSERT_TRUE(golden.contains("_generated_by"));
  ASSERT_EQ(golden.at("cases").size(), 4u);
  for (const auto& c : golden.at("cases")) {
    const std::string name = c.at("task").get<std::string>() + " seed " + std::to_string(c.at("seed").get<int>());
    const auto p = make_translation(c.at("n"), c.at("min_len"), c.at("max_len"),
                                    translation_task_from_name(c.at("task")), c.at("n_words"),
                                    c.at("seed").get<std::uint64_t>());
    testing::expect_equal_lists(p.src, c.at("src").get<std::vector<std::int32_t>>(), name + " src");
    testing::expect_equal_lists(p.src_len, c.at("src_len").get<std::vector<std::int32_t>>(), name + " src_len");
    testing::expect_equal_lists(p.tgt_in, c.at("tgt_in").get<std::vector<std::int32_t>>(), name + " tgt_in");
    testing::expect_equal_lists(p.tgt_out, c.at("tgt_out").get<std::vector<std::int32_t>>(), name + " tgt_out");
  }
}

TEST(Translation, FirstPairByHand) {
  // seed 0, lengths in [3, 9], 10 words: the first source is 7 3 7 3 1 6 6.
  // d(w) = (3w + 1) mod 10 gives 2 0 2 0 4 9 9; pairs swapped: 0 2 0 2 9 4 9.
  const auto p = make_translation(6, 3, 9, TranslationTask::Translation, 10, 0);
  ASSERT_EQ(p.src_len[0], 7);
  EXPECT_EQ(std::vector<std::int32_t>(p.src.begin(), p.src.begin() + 9),
            (std::vector<std::int32_t>{10, 6, 10, 6, 4, 9, 9, kPad, kPad}));
  EXPECT_EQ(std::vector<std::int32_t>(p.tgt_in.begin(), p.tgt_in.begin() + 10),
            (std::vector<std::int32_t>{kBos, 3, 5, 3, 5, 12, 7, 12, kPad, kPad}));
  EXPECT_EQ(std::vector<std::int32_t>(p.tgt_out.begin(), p.tgt_out.begin() + 10),
            (std::vector<std::int32_t>{3, 5, 3, 5, 12, 7, 12, kEos, kPad, kPad}));
}

TEST(Translation, CopyAndReverseKeepLengthsAndPadding) {
  const auto c = make_translation(200, 2, 12, TranslationTask::Copy, 10, 5);
  const auto r = make_translation(200, 2, 12, TranslationTask::Reverse, 10, 5);
  const int S = 12, T = 13;
  for (int i = 0; i < 200; ++i) {
    const int L = c.src_len[i];
    ASSERT_GE(L, 2);
    ASSERT_LE(L, 12);
    for (int k = 0; k < L; ++k) {
      EXPECT_EQ(c.tgt_out[i * T + k], c.src[i * S + k]);
      EXPECT_EQ(r.tgt_out[i * T + k], r.src[i * S + L - 1 - k]);
    }
    EXPECT_EQ(c.tgt_out[i * T + L], kEos);
    for (int k = L; k < S; ++k) EXPECT_EQ(c.src[i * S + k], kPad);
    for (int k = L + 1; k < T; ++k) EXPECT_EQ(r.tgt_out[i * T + k], kPad);
  }
}

TEST(Translation, DictionaryIsABijection) {
  EXPECT_EQ(dictionary_multiplier(10), 3);
  EXPECT_EQ(dictionary_multiplier(6), 5);
  EXPECT_EQ(dictionary_multiplier(9), 4);
}

TEST(Translation, RefusesBadSizes) {
  EXPECT_THROW(make_translation(0, 1, 5, TranslationTask::Copy, 10, 0), std::invalid_argument);
  EXPECT_THROW(make_translation(5, 6, 5, TranslationTask::Copy, 10, 0), std::invalid_argument);
  EXPECT_THROW(make_translation(5, 0, 5, TranslationTask::Copy, 10, 0), std::invalid_argument);
  EXPECT_THROW(translation_task_from_name("french"), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::data
