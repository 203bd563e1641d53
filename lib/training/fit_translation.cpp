#include "training/fit_translation.hpp"

namespace attnlab::training {

void gather_pairs(PairBatch& batch, const data::TranslationPairs& d, const std::int64_t* order, int b) {
  int S = 1;
  for (int r = 0; r < b; ++r) S = std::max(S, d.src_len[order[r]]);
  const int W = d.max_len, T = S + 1;
  // resize never shrinks capacity, so after the first full batch nothing allocates
  batch.src.resize(static_cast<std::size_t>(b) * S);
  batch.lengths.resize(b);
  batch.tgt_in.resize(static_cast<std::size_t>(b) * T);
  batch.tgt_out.resize(static_cast<std::size_t>(b) * T);
  for (int r = 0; r < b; ++r) {
    const std::size_t i = static_cast<std::size_t>(order[r]);
    std::copy_n(d.src.begin() + i * W, S, batch.src.begin() + static_cast<std::size_t>(r) * S);
    std::copy_n(d.tgt_in.begin() + i * (W + 1), T, batch.tgt_in.begin() + static_cast<std::size_t>(r) * T);
    std::copy_n(d.tgt_out.begin() + i * (W + 1), T, batch.tgt_out.begin() + static_cast<std::size_t>(r) * T);
    batch.lengths[r] = d.src_len[i];
  }
  batch.B = b;
  batch.S = S;
}

bool exact_sentence(const std::int32_t* pred, const std::int32_t* tgt_out, int len) {
  for (int k = 0; k <= len; ++k)
    if (pred[k] != tgt_out[k]) return false;
  return true;
}

}  // namespace attnlab::training
