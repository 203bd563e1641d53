#include "kernels/multihead_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/attention/mha_heads.hpp"
#include "kernels/vector/column_sums.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

MhaDims mha_dims(int B, int T, int S, int C, int H) { return mha_dims(B, T, S, C, H, MhaVariant{}); }

MhaDims mha_dims(int B, int T, int S, int C, int H, const MhaVariant& v) {
  if (B <= 0 || T <= 0 || S <= 0 || C <= 0 || H <= 0)
    throw std::invalid_argument("multihead attention: B, T, S, d_model and n_heads must be positive (got B=" +
                                std::to_string(B) + ", T=" + std::to_string(T) + ", S=" + std::to_string(S) +
                                ", d_model=" + std::to_string(C) + ", n_heads=" + std::to_string(H) + ")");
  if (C % H != 0)
    throw std::invalid_argument("multihead attention: d_model " + std::to_string(C) +
                                " is not divisible by n_heads " + std::to_string(H));
  if (v.kdim < 0 || v.vdim < 0)
    throw std::invalid_argument("multihead attention: kdim and vdim must be positive, or 0 for embed_dim (got kdim=" +
                                std::to_string(v.kdim) + ", vdim=" + std::to_string(v.vdim) + ")");
  MhaDims d{B, T, S, C, H, C / H};
  d.kdim = v.kdim > 0 ? v.kdim : C;
  d.vdim = v.vdim > 0 ? v.vdim : C;
  d.batch_first = v.batch_first;
  d.add_bias_kv = v.add_bias_kv;
  d.add_zero_attn = v.add_zero_attn;
  return d;
}

std::size_t mha_parameter_count(int C) { return mha_parameter_count(C, C, C, true, false); }

std::size_t mha_parameter_count(int C, int kdim, int vdim, bool bias, bool add_bias_kv) {
  const std::size_t c = static_cast<std::size_t>(C);
  return c * (c + std::size_t(kdim) + std::size_t(vdim)) + c * c + (bias ? 4 * c : 0) + (add_bias_kv ? 2 * c : 0);
}

MhaCacheLayout mha_cache_layout(const MhaDims& d, bool with_weights) {
  const std::size_t B = d.B, T = d.T, S = d.keys(), C = d.C, H = d.H;
  MhaCacheLayout L{};
  if (d.T == d.S && int(S) == d.S) {  // one (B·T, 3C) block: a self-attention projection is one product
    L.q = 0;
    L.k = C;
    L.ld_q = L.ld_kv = 3 * C;
  } else {  // q (B·T, C), then kv (B·S', 2C)
    L.q = 0;
    L.k = B * T * C;
    L.ld_q = C;
    L.ld_kv = 2 * C;
  }
  L.v = L.k + C;
  L.att = B * T * C + 2 * B * S * C;
  L.y = L.att + (with_weights ? B * H * T * S : 0);
  L.tile = L.y + B * T * C;
  L.total = L.tile + (with_weights ? mha_forward_tile_size(d) : 0);
  // row (b, i) of a (B, T, .) tensor is b*T + i batch-first, i*B + b sequence-first
  L.q_b = (d.batch_first ? T : 1) * L.ld_q;
  L.q_i = (d.batch_first ? 1 : B) * L.ld_q;
  L.kv_b = (d.batch_first ? S : 1) * L.ld_kv;
  L.kv_j = (d.batch_first ? 1 : B) * L.ld_kv;
  L.y_b = (d.batch_first ? T : 1) * C;
  L.y_i = (d.batch_first ? 1 : B) * C;
  return L;
}

std::size_t mha_cache_size(const MhaDims& d) { return mha_cache_layout(d).total; }

std::size_t mha_scratch_size(const MhaDims& d) {
  const std::size_t B = d.B, T = d.T, S = d.keys(), C = d.C;
  return (B * T * C + 2 * B * S * C) + B * T * C + mha_backward_tile_size(d);
}

namespace {

// Rows [0, rows) of a strided (rows, n) block get the bias vector (n).
template <class T>
void fill_rows_with_bias(T* dst, std::size_t ld, std::size_t rows, const T* bias, std::size_t n) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < n; ++c) dst[r * ld + c] = bias[c];
}

using detail::add_column_sums;  // bias_grad (n) += column sums of a strided (rows, n) block

// The key/value rows that come from the inputs, as blocks of consecutive rows
// (input row, cache row, count). Appended keys interleave with them only
// batch-first, where each batch's S rows are followed by its appended ones.
struct RowBlock {
  std::size_t in_row, cache_row, rows;
};
template <class F>
void for_each_kv_block(const MhaDims& d, F&& f) {
  const std::size_t S = d.S, Sp = d.keys();
  if (d.batch_first && Sp != S)
    for (std::size_t b = 0; b < std::size_t(d.B); ++b) f(RowBlock{b * S, b * Sp, S});
  else
    f(RowBlock{0, 0, std::size_t(d.B) * S});
}

// in_proj_weight as one (3C, C) tensor: the roles sit back to back.
template <class P>
bool packed_weights(const P& p, const MhaDims& d) {
  const std::size_t cc = std::size_t(d.C) * d.C;
  return d.kdim == d.C && d.vdim == d.C && p.k_proj_weight == p.q_proj_weight + cc &&
         p.v_proj_weight == p.k_proj_weight + cc;
}

// One input projection into strided rows: out rows = in (rows, K) · W^T (N, K)
// [+ bias], beta = 1 after the bias pre-fill (PyTorch's addmm), beta = 0 without;
// only the share's rows of it, which give the whole product's bytes.
template <class T>
void project(T* out, std::size_t ld_out, const T* in, std::size_t ld_in, std::size_t rows, int K, const T* W, int N,
             const T* bias, tensor::RowShare share) {
  const tensor::RowRange r = tensor::row_share(rows, share);
  if (r.size() == 0) return;
  out += r.first * ld_out;
  in += r.first * ld_in;
  if (bias) fill_rows_with_bias(out, ld_out, r.size(), bias, N);
  tensor::gemm<T>(false, true, int(r.size()), N, K, T(1), in, int(ld_in), W, K, bias ? T(1) : T(0), out,
                  int(ld_out));
}

}  // namespace

template <class T>
void mha_in_projection(T* cache, const MhaCacheLayout& L, const T* query, const T* key, const T* value,
                       const MhaParams<T>& p, const MhaDims& d, tensor::RowShare share) {
  const int B = d.B, Tq = d.T, S_in = d.S, S = d.keys(), C = d.C;
  T* q = cache + L.q;  // (B·T, C), row stride ld_q
  T* k = cache + L.k;  // (B·S', C), row stride ld_kv
  T* v = cache + L.v;  // (B·S', C), row stride ld_kv
  const std::size_t BT = std::size_t(B) * Tq;
  const T* bq = p.in_proj_bias;
  const T* bk = bq ? bq + C : nullptr;
  const T* bv = bq ? bq + 2 * C : nullptr;
  const bool packed = packed_weights(p, d);
  mha_check_bias_kv(p, d);

  // in-projection. Packed weights fuse the products PyTorch fuses
  // (_in_projection_packed): all three for self-attention, k and v when key is value.
  if (packed && query == key && key == value && Tq == S_in && S == S_in) {
    // self-attention: (B·T, C) · (C, 3C) into [q | k | v]
    project(q, L.ld_q, query, C, BT, C, p.q_proj_weight, 3 * C, bq, share);
  } else {
    project(q, L.ld_q, query, C, BT, C, p.q_proj_weight, C, bq, share);
    for_each_kv_block(d, [&](const RowBlock& r) {
      T* kr = k + r.cache_row * L.ld_kv;
      T* vr = v + r.cache_row * L.ld_kv;
      if (packed && key == value) {  // encoder-decoder: (rows, C) · (C, 2C) into [k | v]
        project(kr, L.ld_kv, key + r.in_row * C, C, r.rows, C, p.k_proj_weight, 2 * C, bk, share);
      } else {
        project(kr, L.ld_kv, key + r.in_row * d.kdim, d.kdim, r.rows, d.kdim, p.k_proj_weight, C, bk, share);
        project(vr, L.ld_kv, value + r.in_row * d.vdim, d.vdim, r.rows, d.vdim, p.v_proj_weight, C, bv, share);
      }
    });
  }
  // appended keys: bias_k / bias_v (add_bias_kv), then zeros (add_zero_attn), for every batch
  for (int b = 0; b < B && share.part == 0; ++b) {
    int j = S_in;
    if (d.add_bias_kv) {
      std::copy_n(p.bias_k, C, k + b * L.kv_b + j * L.kv_j);
      std::copy_n(p.bias_v, C, v + b * L.kv_b + j * L.kv_j);
      ++j;
    }
    if (d.add_zero_attn) {
      std::fill_n(k + b * L.kv_b + j * L.kv_j, C, T(0));
      std::fill_n(v + b * L.kv_b + j * L.kv_j, C, T(0));
    }
  }

}

template <class T>
void mha_out_projection(T* out, const T* y, const MhaParams<T>& p, const MhaDims& d, tensor::RowShare share) {
  project(out, d.C, y, d.C, std::size_t(d.B) * d.T, d.C, p.out_proj_weight, d.C, p.out_proj_bias, share);
}

template <class T>
void mha_forward(T* out, T* weights, MhaWeights which, T* cache, const T* query, const T* key, const T* value,
                 const MhaMasks<T>& masks, const MhaDropout<T>& dropout, const MhaParams<T>& p, const MhaDims& d) {
  const std::size_t BT = std::size_t(d.B) * d.T, S = d.keys();
  const MhaCacheLayout L = mha_cache_layout(d);
  const T* y = cache + L.y;  // (B·T, C) heads concatenated
  mha_in_projection(cache, L, query, key, value, p, d);

  if (weights == nullptr) which = MhaWeights::none;
  if (which == MhaWeights::averaged)
    for (std::size_t n = 0; n < BT * S; ++n) weights[n] = T(0);
  mha_heads_forward(cache, L, weights, which, masks, dropout, d);

  if (which == MhaWeights::averaged)  // PyTorch: weights.sum(dim=1) / num_heads
    for (std::size_t n = 0; n < BT * S; ++n) weights[n] /= T(d.H);

  // out-projection: out = y · Wo^T + bo (y rows are out rows, in either layout)
  mha_out_projection(out, y, p, d);
}

template <class T>
void mha_backward_to_projections(const MhaGrads<T>& g, T* scratch, const T* d_out, const T* cache,
                                 const MhaDropout<T>& dropout, const MhaParams<T>& p, const MhaDims& d) {
  using tensor::gemm;
  const int C = d.C;
  const MhaCacheLayout L = mha_cache_layout(d);
  const T* y = cache + L.y;
  const std::size_t BT = std::size_t(d.B) * d.T, BS = std::size_t(d.B) * d.keys();
  const std::size_t proj_size = BT * C + 2 * BS * C;
  // scratch: d(q, k, v) in the cache's projection layout, then dy (B·T, C), then the heads' tile
  T* dy = scratch + proj_size;
  // no fill: dy is written by its product (beta 0) and d(q, k, v) by the heads' backward

  // out-projection: d(bo) += sum over rows of d_out; d(Wo) (C, C) += d_out^T · y; dy = d_out · Wo
  if (g.out_proj_bias) add_column_sums(g.out_proj_bias, d_out, C, BT, C);
  if (g.out_proj_weight) gemm<T>(true, false, C, C, int(BT), T(1), d_out, C, y, C, T(1), g.out_proj_weight, C);
  gemm<T>(false, false, int(BT), C, C, T(1), d_out, C, p.out_proj_weight, C, T(0), dy, C);

  mha_heads_backward(scratch, dy, dy + BT * C, cache, L, dropout, d);
}

template <class T>
void mha_backward(T* d_query, T* d_key, T* d_value, const MhaGrads<T>& g, T* scratch, const T* d_out,
                  const T* cache, const T* query, const T* key, const T* value, const MhaDropout<T>& dropout,
                  const MhaParams<T>& p, const MhaDims& d) {
  using tensor::gemm;
  const int B = d.B, Tq = d.T, S_in = d.S, C = d.C;
  const MhaCacheLayout L = mha_cache_layout(d);
  const std::size_t BT = std::size_t(B) * Tq;
  T* dq = scratch + L.q;
  T* dk = scratch + L.k;
  T* dv = scratch + L.v;
  mha_backward_to_projections(g, scratch, d_out, cache, dropout, p, d);
  const int S = d.keys();

  // appended keys: bias_k / bias_v collect their rows' gradients over the
  // batch; the zero key is a constant and its gradient is dropped
  if (d.add_bias_kv)
    for (int b = 0; b < B; ++b) {
      const std::size_t at = b * L.kv_b + std::size_t(S_in) * L.kv_j;
      if (g.bias_k)
        for (int c = 0; c < C; ++c) g.bias_k[c] += dk[at + c];
      if (g.bias_v)
        for (int c = 0; c < C; ++c) g.bias_v[c] += dv[at + c];
    }

  const bool packed = packed_weights(p, d);
  const bool grads_packed = packed_weights(g, d) && g.q_proj_weight;
  const bool self_fused = packed && query == key && key == value && Tq == S_in && S == S_in;

  // in-projection biases: column sums of dq and of the input rows of dk, dv
  if (g.in_proj_bias) {
    add_column_sums(g.in_proj_bias, dq, L.ld_q, BT, C);
    for_each_kv_block(d, [&](const RowBlock& r) {
      add_column_sums(g.in_proj_bias + C, dk + r.cache_row * L.ld_kv, L.ld_kv, r.rows, C);
      add_column_sums(g.in_proj_bias + 2 * C, dv + r.cache_row * L.ld_kv, L.ld_kv, r.rows, C);
    });
  }

  // projection weights: Wq (C, C) += dq^T · query, Wk (C, kdim) += dk^T · key, Wv += dv^T · value
  if (self_fused && grads_packed) {
    gemm<T>(true, false, 3 * C, C, int(BT), T(1), dq, int(L.ld_q), query, C, T(1), g.q_proj_weight, C);
  } else {
    if (g.q_proj_weight)
      gemm<T>(true, false, C, C, int(BT), T(1), dq, int(L.ld_q), query, C, T(1), g.q_proj_weight, C);
    for_each_kv_block(d, [&](const RowBlock& r) {
      const T* dkr = dk + r.cache_row * L.ld_kv;
      const T* dvr = dv + r.cache_row * L.ld_kv;
      if (packed && grads_packed && key == value) {
        gemm<T>(true, false, 2 * C, C, int(r.rows), T(1), dkr, int(L.ld_kv), key + r.in_row * C, C, T(1),
                g.k_proj_weight, C);
        return;
      }
      if (g.k_proj_weight)
        gemm<T>(true, false, C, d.kdim, int(r.rows), T(1), dkr, int(L.ld_kv), key + r.in_row * d.kdim, d.kdim,
                T(1), g.k_proj_weight, d.kdim);
      if (g.v_proj_weight)
        gemm<T>(true, false, C, d.vdim, int(r.rows), T(1), dvr, int(L.ld_kv), value + r.in_row * d.vdim, d.vdim,
                T(1), g.v_proj_weight, d.vdim);
    });
  }

  // inputs: d_query += dq · Wq, d_key += dk · Wk, d_value += dv · Wv
  if (self_fused && d_query && d_query == d_key && d_key == d_value) {
    // one buffer for all three: (B·T, 3C) · (3C, C) adds their sum
    gemm<T>(false, false, int(BT), C, 3 * C, T(1), dq, int(L.ld_q), p.q_proj_weight, C, T(1), d_query, C);
    return;
  }
  if (d_query) gemm<T>(false, false, int(BT), C, C, T(1), dq, int(L.ld_q), p.q_proj_weight, C, T(1), d_query, C);
  for_each_kv_block(d, [&](const RowBlock& r) {
    const T* dkr = dk + r.cache_row * L.ld_kv;
    const T* dvr = dv + r.cache_row * L.ld_kv;
    if (packed && d_key && d_key == d_value) {  // [dk | dv] · [Wk; Wv] adds their sum
      gemm<T>(false, false, int(r.rows), C, 2 * C, T(1), dkr, int(L.ld_kv), p.k_proj_weight, C, T(1),
              d_key + r.in_row * C, C);
      return;
    }
    if (d_key)
      gemm<T>(false, false, int(r.rows), d.kdim, C, T(1), dkr, int(L.ld_kv), p.k_proj_weight, d.kdim, T(1),
              d_key + r.in_row * d.kdim, d.kdim);
    if (d_value)
      gemm<T>(false, false, int(r.rows), d.vdim, C, T(1), dvr, int(L.ld_kv), p.v_proj_weight, d.vdim, T(1),
              d_value + r.in_row * d.vdim, d.vdim);
  });
}

#define ATTNLAB_MHA_INSTANTIATE(T)                                                                   \
  template void mha_in_projection<T>(T*, const MhaCacheLayout&, const T*, const T*, const T*,            \
                                     const MhaParams<T>&, const MhaDims&, tensor::RowShare);            \
  template void mha_out_projection<T>(T*, const T*, const MhaParams<T>&, const MhaDims&, tensor::RowShare); \
  template void mha_forward<T>(T*, T*, MhaWeights, T*, const T*, const T*, const T*, const MhaMasks<T>&, \
                               const MhaDropout<T>&, const MhaParams<T>&, const MhaDims&);             \
  template void mha_backward<T>(T*, T*, T*, const MhaGrads<T>&, T*, const T*, const T*, const T*,        \
                                const T*, const T*, const MhaDropout<T>&, const MhaParams<T>&, const MhaDims&); \
  template void mha_backward_to_projections<T>(const MhaGrads<T>&, T*, const T*, const T*,               \
                                               const MhaDropout<T>&, const MhaParams<T>&, const MhaDims&);
ATTNLAB_MHA_INSTANTIATE(float)
ATTNLAB_MHA_INSTANTIATE(double)
#undef ATTNLAB_MHA_INSTANTIATE

}  // namespace attnlab::kernels
