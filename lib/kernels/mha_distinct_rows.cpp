#include "kernels/mha_distinct_rows.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/vector/column_sums.hpp"
#include "kernels/embedding.hpp"
#include "kernels/attention/mha_heads.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

namespace {

template <class P>
bool packed_or_null(const P& p, const MhaDims& d) {
  if (!p.q_proj_weight && !p.k_proj_weight && !p.v_proj_weight) return true;
  const std::size_t cc = std::size_t(d.C) * d.C;
  return p.q_proj_weight && p.k_proj_weight == p.q_proj_weight + cc && p.v_proj_weight == p.k_proj_weight + cc;
}

template <class T>
void check(const char* where, const std::int32_t* idx, int U, const MhaParams<T>& p, const MhaDims& d) {
  if (d.T != d.S || d.add_bias_kv || d.add_zero_attn || d.kdim != d.C || d.vdim != d.C || !p.q_proj_weight ||
      !packed_or_null(p, d))
    throw std::invalid_argument(std::string(where) +
                                ": needs self-attention (T == S, kdim = vdim = d_model) with packed in_proj_weight "
                                "and nothing appended (add_bias_kv, add_zero_attn)");
  if (U < 1) throw std::invalid_argument(std::string(where) + ": need U >= 1 distinct rows, got " + std::to_string(U));
  const std::size_t N = std::size_t(d.B) * d.T;
  for (std::size_t r = 0; r < N; ++r)
    if (idx[r] < 0 || idx[r] >= U) [[unlikely]]
      throw std::out_of_range(std::string(where) + ": idx " + std::to_string(idx[r]) + " at row " +
                              std::to_string(r) + " is outside [0, " + std::to_string(U) + ")");
}

}  // namespace

template <class T>
void mha_self_forward_distinct(T* out, T* cache, T* table, const T* rows, const std::int32_t* idx, int U,
                               const MhaMasks<T>& masks, const MhaDropout<T>& dropout, const MhaParams<T>& p,
                               const MhaDims& d) {
  check("mha_self_forward_distinct", idx, U, p, d);
  const int C = d.C;
  const std::size_t N = std::size_t(d.B) * d.T, row = 3 * std::size_t(C);
  const MhaCacheLayout L = mha_cache_layout(d);  // self-attention: rows [q | k | v], ld 3C
  // table (U, 3C) = rows · W_in^T + b_in: the bias first, then the product
  // with beta 1, as mha_in_projection adds them (PyTorch's addmm)
  if (p.in_proj_bias)
    for (int u = 0; u < U; ++u) std::copy_n(p.in_proj_bias, row, table + u * row);
  tensor::gemm<T>(false, true, U, int(row), C, T(1), rows, C, p.q_proj_weight, C, p.in_proj_bias ? T(1) : T(0),
                  table, int(row));
  // self-attention's cache rows are [q | k | v], ld_q = 3C apart: a gather of table rows
  embedding_forward(cache + L.q, idx, table, int(N), U, int(row));
  mha_heads_forward(cache, L, static_cast<T*>(nullptr), MhaWeights::none, masks, dropout, d);
  mha_out_projection(out, cache + L.y, p, d);
}

template <class T>
void mha_self_backward_distinct(T* d_rows, const MhaGrads<T>& g, T* scratch, T* table, const T* d_out,
                                const T* cache, const T* rows, const std::int32_t* idx, int U,
                                const MhaDropout<T>& dropout, const MhaParams<T>& p, const MhaDims& d) {
  check("mha_self_backward_distinct", idx, U, p, d);
  if (!packed_or_null(g, d))
    throw std::invalid_argument("mha_self_backward_distinct: the in-projection's gradient must be packed or null");
  const int C = d.C;
  const std::size_t N = std::size_t(d.B) * d.T, row = 3 * std::size_t(C);
  const MhaCacheLayout L = mha_cache_layout(d);
  mha_backward_to_projections(g, scratch, d_out, cache, dropout, p, d);
  const T* dqkv = scratch + L.q;  // (N, 3C), rows ld_q apart

  // in_proj_bias: column sums over every copy, in row order, as mha_backward takes them
  if (g.in_proj_bias) detail::add_column_sums(g.in_proj_bias, dqkv, L.ld_q, N, row);
  // d(table)[u] = Σ d[q | k | v] over the rows r with idx[r] = u, in row order
  std::fill(table, table + mha_distinct_table_size(U, C), T(0));
  embedding_backward(table, dqkv, idx, int(N), U, int(row));  // rows ld_q = 3C apart
  // in_proj_weight (3C, C) += d(table)^T · rows; d_rows (U, C) += d(table) · in_proj_weight
  if (g.q_proj_weight)
    tensor::gemm<T>(true, false, int(row), C, U, T(1), table, int(row), rows, C, T(1), g.q_proj_weight, C);
  if (d_rows) tensor::gemm<T>(false, false, U, C, int(row), T(1), table, int(row), p.q_proj_weight, C, T(1), d_rows, C);
}

#define ATTNLAB_MHA_DISTINCT_INSTANTIATE(T)                                                                      \
  template void mha_self_forward_distinct<T>(T*, T*, T*, const T*, const std::int32_t*, int, const MhaMasks<T>&, \
                                             const MhaDropout<T>&, const MhaParams<T>&, const MhaDims&);         \
  template void mha_self_backward_distinct<T>(T*, const MhaGrads<T>&, T*, T*, const T*, const T*, const T*,      \
                                              const std::int32_t*, int, const MhaDropout<T>&, const MhaParams<T>&, \
                                              const MhaDims&);
ATTNLAB_MHA_DISTINCT_INSTANTIATE(float)
ATTNLAB_MHA_DISTINCT_INSTANTIATE(double)
#undef ATTNLAB_MHA_DISTINCT_INSTANTIATE

}  // namespace attnlab::kernels
