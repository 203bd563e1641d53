// The distinct (token, position) pairs of a batch, for a first block whose
// input is tok(x) + pos(t): at most vocab · T rows however large the batch
// (10 · 8 = 80 of the course's 512), which the block's LN1 and attention
// in-projection then compute once each (kernels/pre_norm_block.hpp, DistinctRows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/pre_norm_block.hpp"

namespace attnlab::models {

class TokenPositionRows {
 public:
  /// Buffers for batches of up to max_batch sequences of `length` tokens in
  /// [0, vocab), width C. enabled() is false, and nothing is allocated, when
  /// vocab > max_batch: the pairs could then outnumber a batch's rows.
  TokenPositionRows(int vocab, int length, int C, int max_batch);
  /// Bytes the constructor allocates for these arguments.
  static std::size_t bytes(int vocab, int length, int C, int max_batch);
  bool enabled() const { return U_max_ > 0; }

  /// Groups tokens (B, T): rows[u] = tok[v] + pos[t] for the u-th distinct
  /// pair in order of first appearance (the bytes of embedding_forward then
  /// position_embedding_forward; tok (vocab, C), pos (at least T, C)),
  /// idx[b·T + t] = its u. The returned view (also last()) has d_rows
  /// zeroed, for the block's backward pass to add into. Throws
  /// std::logic_error when not enabled(), std::invalid_argument unless
  /// 1 <= B <= max_batch, std::out_of_range for a token outside [0, vocab),
  /// each before anything is written.
  kernels::DistinctRows<float> group(const std::int32_t* tokens, int B, const float* tok, const float* pos);
  /// The last group()'s view, into this object's own buffers (so a copy of
  /// the object gives a view into the copy's).
  kernels::DistinctRows<float> last();

  /// Adds the last group's d_rows into the tables' gradients: dtok[v] and
  /// dpos[t] each get d_rows[u] of every pair u = (v, t), in u order.
  void add_gradients(float* dtok, float* dpos) const;

 private:
  int vocab_, T_, C_, max_batch_, U_max_, U_ = 0;
  std::vector<std::int32_t> slot_;             // (vocab · T): u + 1 of pair (v, t) in the current batch, 0 = unseen
  std::vector<std::int32_t> idx_, tok_, pos_;  // (B·T); (U) the pair of each u
  std::vector<float> rows_, d_rows_, table_;   // (U, C), (U, C), (U, 3C)
};

}  // namespace attnlab::models
