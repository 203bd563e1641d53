// make_translation of scripts/translation_models.py, draw for draw, so the
// C++ rows train on exactly the sentences of the PyTorch twin.
#include "data/translation.hpp"

#include <cstddef>
#include <numeric>
#include <stdexcept>

#include "random/generator.hpp"

namespace attnlab::data {

TranslationTask translation_task_from_name(const std::string& name) {
  if (name == "translation") return TranslationTask::Translation;
  if (name == "copy") return TranslationTask::Copy;
  if (name == "reverse") return TranslationTask::Reverse;
  throw std::invalid_argument("unknown translation task \"" + name + "\" (valid: translation, copy, reverse)");
}

int TranslationPairs::vocab() const { return kFirstWord + n_words; }

int dictionary_multiplier(int n_words) {
  int a = 3;
  while (std::gcd(a, n_words) != 1) ++a;
  return a;
}

TranslationPairs make_translation(int n, int min_len, int max_len, TranslationTask task, int n_words,
                                  std::uint64_t seed) {
  if (n < 1 || min_len < 1 || max_len < min_len || n_words < 2)
    throw std::invalid_argument("make_translation: needs n >= 1, 1 <= min_len <= max_len and n_words >= 2, got n=" +
                                std::to_string(n) + " min_len=" + std::to_string(min_len) +
                                " max_len=" + std::to_string(max_len) + " n_words=" + std::to_string(n_words));
  const auto rows = static_cast<std::size_t>(n), S = static_cast<std::size_t>(max_len), T = S + 1;
  random::Generator g(seed);
  std::vector<std::int64_t> lengths(rows), words(rows * S);
  g.randint(lengths.data(), rows, min_len, max_len + 1);
  g.randint(words.data(), words.size(), 0, n_words);

  TranslationPairs p;
  p.n = n;
  p.max_len = max_len;
  p.n_words = n_words;
  p.src.assign(rows * S, kPad);
  p.src_len.resize(rows);
  p.tgt_in.assign(rows * T, kPad);
  p.tgt_out.assign(rows * T, kPad);
  const int a = dictionary_multiplier(n_words);
  std::vector<std::int32_t> y(S);
  for (std::size_t i = 0; i < rows; ++i) {
    const auto L = static_cast<std::size_t>(lengths[i]);
    const std::int64_t* w = words.data() + i * S;
    for (std::size_t k = 0; k < L; ++k) {
      switch (task) {
        case TranslationTask::Copy: y[k] = static_cast<std::int32_t>(w[k]); break;
        case TranslationTask::Reverse: y[k] = static_cast<std::int32_t>(w[L - 1 - k]); break;
        case TranslationTask::Translation: y[k] = static_cast<std::int32_t>((a * w[k] + 1) % n_words); break;
      }
    }
    if (task == TranslationTask::Translation)
      for (std::size_t k = 0; k + 1 < L; k += 2) std::swap(y[k], y[k + 1]);
    p.src_len[i] = static_cast<std::int32_t>(L);
    std::int32_t* src = p.src.data() + i * S;
    std::int32_t* tin = p.tgt_in.data() + i * T;
    std::int32_t* tout = p.tgt_out.data() + i * T;
    tin[0] = kBos;
    for (std::size_t k = 0; k < L; ++k) {
      src[k] = static_cast<std::int32_t>(w[k]) + kFirstWord;
      tin[k + 1] = y[k] + kFirstWord;
      tout[k] = y[k] + kFirstWord;
    }
    tout[L] = kEos;
  }
  return p;
}

}  // namespace attnlab::data
