// The toy translation task family of the `translation` experiment (issue 13):
// source sentences of digits, their "translation" (a fixed dictionary mapping
// plus adjacent pairs swapped, the local reordering of adjective-noun order
// between English and French; Bahdanau et al. 2015, Figure 3), or the plain
// copy and reverse tasks. Sentences have different lengths, so batches carry
// padding that attention must mask and the loss must ignore.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::data {

/// Token ids, shared by source and target: PAD 0, BOS 1, EOS 2, words from 3.
inline constexpr std::int32_t kPad = 0, kBos = 1, kEos = 2, kFirstWord = 3;

enum class TranslationTask { Translation, Copy, Reverse };

/// "translation", "copy" or "reverse"; throws std::invalid_argument otherwise.
TranslationTask translation_task_from_name(const std::string& name);

/// n sentence pairs, row-major, padded with kPad.
struct TranslationPairs {
  int n = 0;
  int max_len = 0;                    // S: the source width; targets are S + 1 wide
  std::vector<std::int32_t> src;      // (n, S)      words, then PAD
  std::vector<std::int32_t> src_len;  // (n)         in [min_len, max_len]
  std::vector<std::int32_t> tgt_in;   // (n, S + 1)  BOS y_1 .. y_L, then PAD (the decoder's inputs)
  std::vector<std::int32_t> tgt_out;  // (n, S + 1)  y_1 .. y_L EOS, then PAD (what it must predict)
  int vocab() const;                  // kFirstWord + n_words
  int n_words = 0;
};

/// The multiplier a of the dictionary w -> (a·w + 1) mod n_words: the
/// smallest a >= 3 coprime with n_words, so the mapping is a bijection.
int dictionary_multiplier(int n_words);

/// The pairs scripts/translation_models.py's make_translation makes, draw for
/// draw: a fresh Generator seeded with `seed` makes two randint calls, lengths
/// (n) in [min_len, max_len] and words (n, max_len) in [0, n_words) (the words
/// past a sentence's length are drawn and dropped). Target of a source w_1..w_L:
///   translation  y = d(w) with pairs (y_1, y_2), (y_3, y_4), ... swapped, an odd last word kept;
///   copy         y = w;
///   reverse      y = w_L .. w_1.
/// Throws std::invalid_argument unless n >= 1, 1 <= min_len <= max_len and n_words >= 2.
TranslationPairs make_translation(int n, int min_len, int max_len, TranslationTask task, int n_words,
                                  std::uint64_t seed);

}  // namespace attnlab::data
