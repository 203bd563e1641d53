#include "models/token_position_rows.hpp"

#include <algorithm>
#include <string>

#include "kernels/embedding.hpp"
#include "kernels/mha_distinct_rows.hpp"

namespace attnlab::models {

namespace {

int max_pairs(int vocab, int length, int max_batch) { return vocab > max_batch ? 0 : vocab * length; }

}  // namespace

TokenPositionRows::TokenPositionRows(int vocab, int length, int C, int max_batch)
    : vocab_(vocab), T_(length), C_(C), max_batch_(max_batch), U_max_(max_pairs(vocab, length, max_batch)) {
  if (!enabled()) return;
  slot_.assign(static_cast<std::size_t>(U_max_), 0);
  idx_.resize(static_cast<std::size_t>(max_batch) * length);
  tok_.resize(U_max_);
  pos_.resize(U_max_);
  rows_.resize(static_cast<std::size_t>(U_max_) * C);
  d_rows_.resize(rows_.size());
  table_.resize(kernels::mha_distinct_table_size(U_max_, C));
}

std::size_t TokenPositionRows::bytes(int vocab, int length, int C, int max_batch) {
  const std::size_t U = max_pairs(vocab, length, max_batch);
  if (U == 0) return 0;
  const std::size_t ints = U + static_cast<std::size_t>(max_batch) * length + 2 * U;
  return ints * sizeof(std::int32_t) + (2 * U * C + kernels::mha_distinct_table_size(int(U), C)) * sizeof(float);
}

kernels::DistinctRows<float> TokenPositionRows::group(const std::int32_t* tokens, int B, const float* tok, const float* pos) {
  if (!enabled()) throw std::logic_error("TokenPositionRows::group: not enabled (vocab > max_batch)");
  if (B < 1 || B > max_batch_)
    throw std::invalid_argument("TokenPositionRows::group: batch of " + std::to_string(B) + " is outside [1, " +
                                std::to_string(max_batch_) + "]");
  for (int r = 0; r < B * T_; ++r)
    if (tokens[r] < 0 || tokens[r] >= vocab_) [[unlikely]]
      throw std::out_of_range("TokenPositionRows::group: token " + std::to_string(tokens[r]) + " at position " +
                              std::to_string(r) + " is outside [0, " + std::to_string(vocab_) + ")");
  const std::size_t C = C_;
  U_ = 0;
  for (int r = 0; r < B * T_; ++r) {
    const int v = tokens[r], t = r % T_;
    std::int32_t& slot = slot_[static_cast<std::size_t>(v) * T_ + t];
    if (slot == 0) {
      tok_[U_] = v;
      pos_[U_] = t;
      float* row = rows_.data() + U_ * C;
      // embedding_forward's copy, then position_embedding_forward's add
      for (std::size_t c = 0; c < C; ++c) row[c] = tok[v * C + c];
      for (std::size_t c = 0; c < C; ++c) row[c] += pos[t * C + c];
      slot = ++U_;
    }
    idx_[r] = slot - 1;
  }
  for (int u = 0; u < U_; ++u) slot_[static_cast<std::size_t>(tok_[u]) * T_ + pos_[u]] = 0;  // ready for the next batch
  std::fill_n(d_rows_.begin(), static_cast<std::size_t>(U_) * C, 0.0f);
  return last();
}

kernels::DistinctRows<float> TokenPositionRows::last() {
  return {.rows = rows_.data(), .idx = idx_.data(), .U = U_, .table = table_.data(), .d_rows = d_rows_.data()};
}

void TokenPositionRows::add_gradients(float* dtok, float* dpos) const {
  if (U_ == 0) return;
  // each table's scatter-add of d_rows, by the pairs' tokens and positions
  kernels::embedding_backward(dtok, d_rows_.data(), tok_.data(), U_, vocab_, C_);
  kernels::embedding_backward(dpos, d_rows_.data(), pos_.data(), U_, T_, C_);
}

}  // namespace attnlab::models
