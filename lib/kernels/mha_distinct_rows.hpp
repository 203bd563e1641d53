// Self-attention over an input whose rows repeat: x[r] = rows[idx[r]] for
// r < B·T, with U distinct rows. The in-projection is then U rows of
// products, not B·T: the first block of the course's classifiers reads
// tok(x) + pos(t), at most vocab · T = 80 distinct rows in a batch of
// 64 · 8 = 512 (a fifth of a one-block row's multiply-adds).
//
// Forward values are mha_forward's bytes for x wherever tensor::gemm's sums do
// not depend on the row count (attnlab's sgemm tiles: floats on an AVX2+FMA
// machine); the in-projection's gradients are the same sums grouped by
// distinct row, so they agree to rounding (tests/models/distinct_rows_test.cpp).
#pragma once

#include <cstdint>

#include "kernels/multihead_attention.hpp"

namespace attnlab::kernels {

/// Elements of the projected table the two passes below need: U·3C.
inline std::size_t mha_distinct_table_size(int U, int C) {
  return static_cast<std::size_t>(U) * 3 * static_cast<std::size_t>(C);
}

/// mha_forward(out, nullptr, MhaWeights::none, cache, x, x, x, masks, dropout, p, d)
/// for x (B·T, C) in d's row order with x[r] = rows[idx[r]]:
///   rows (U, C), idx (B·T) in [0, U)
///   table (mha_distinct_table_size(U, C)): written, table = rows · in_proj_weight^T
///     + in_proj_bias, then each cache row [q | k | v] is table[idx[r]]
///   cache (mha_cache_size(d)), out (B·T, C) as mha_forward.
/// Requires packed weights (mha_packed), d.T == d.S and nothing appended
/// (no add_bias_kv / add_zero_attn); throws std::invalid_argument otherwise
/// or unless U >= 1, and std::out_of_range for an idx outside [0, U), before
/// anything is written.
template <class T>
void mha_self_forward_distinct(T* out, T* cache, T* table, const T* rows, const std::int32_t* idx, int U,
                               const MhaMasks<T>& masks, const MhaDropout<T>& dropout, const MhaParams<T>& p,
                               const MhaDims& d);

/// Backward pass of mha_self_forward_distinct: ADDS into d_rows (U, C) the
/// gradient of the distinct rows (the sum over their copies of what
/// mha_backward would add to d_query + d_key + d_value), and into g as
/// mha_backward; g's in-projection weight must be packed or null.
/// table: overwritten with d(table) = Σ over copies of d[q | k | v]
/// (U, 3C). scratch (mha_scratch_size(d)), cache, rows, idx, dropout, p as
/// the forward pass had them. Throws as mha_self_forward_distinct.
template <class T>
void mha_self_backward_distinct(T* d_rows, const MhaGrads<T>& g, T* scratch, T* table, const T* d_out,
                                const T* cache, const T* rows, const std::int32_t* idx, int U,
                                const MhaDropout<T>& dropout, const MhaParams<T>& p, const MhaDims& d);

}  // namespace attnlab::kernels
