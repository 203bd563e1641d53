#include "nn/multihead_attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "nn/attention_softmax.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::nn {

MhaDims mha_dims(int B, int T, int S, int C, int H) {
  if (B <= 0 || T <= 0 || S <= 0 || C <= 0 || H <= 0)
    throw std::invalid_argument("multihead attention: B, T, S, d_model and n_heads must be positive (got B=" +
                                std::to_string(B) + ", T=" + std::to_string(T) + ", S=" + std::to_string(S) +
                                ", d_model=" + std::to_string(C) + ", n_heads=" + std::to_string(H) + ")");
  if (C % H != 0)
    throw std::invalid_argument("multihead attention: d_model " + std::to_string(C) +
                                " is not divisible by n_heads " + std::to_string(H));
  return MhaDims{B, T, S, C, H, C / H};
}

std::size_t mha_parameter_count(int C) {
  const std::size_t c = static_cast<std::size_t>(C);
  return 3 * c * c + 3 * c + c * c + c;
}

MhaCacheLayout mha_cache_layout(const MhaDims& d) {
  const std::size_t B = d.B, T = d.T, S = d.S, C = d.C, H = d.H;
  MhaCacheLayout L{};
  if (d.T == d.S) {  // one (B·T, 3C) block: a self-attention projection is one product
    L.q = 0;
    L.k = C;
    L.ld_q = L.ld_kv = 3 * C;
  } else {  // q (B·T, C), then kv (B·S, 2C)
    L.q = 0;
    L.k = B * T * C;
    L.ld_q = C;
    L.ld_kv = 2 * C;
  }
  L.v = L.k + C;
  L.att = B * T * C + 2 * B * S * C;
  L.y = L.att + B * H * T * S;
  L.total = L.y + B * T * C;
  return L;
}

std::size_t mha_cache_size(const MhaDims& d) { return mha_cache_layout(d).total; }

std::size_t mha_scratch_size(const MhaDims& d) {
  const std::size_t B = d.B, T = d.T, S = d.S, C = d.C;
  return (B * T * C + 2 * B * S * C) + B * T * C + S;
}

namespace {

// Rows [0, rows) of a strided (rows, n) block get the bias vector (n).
template <class T>
void fill_rows_with_bias(T* dst, std::size_t ld, std::size_t rows, const T* bias, std::size_t n) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < n; ++c) dst[r * ld + c] = bias[c];
}

// bias_grad (n) += column sums of a strided (rows, n) block.
template <class T>
void add_column_sums(T* bias_grad, const T* src, std::size_t ld, std::size_t rows, std::size_t n) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < n; ++c) bias_grad[c] += src[r * ld + c];
}

}  // namespace

// Calls loop.template operator()<DC>() with DC = D for the head sizes models
// use, so their inner loops have a constant trip count; 0 (runtime D) otherwise.
template <class Loop>
void dispatch_head_size(int D, Loop& loop) {
  switch (D) {
    case 8: loop.template operator()<8>(); break;
    case 16: loop.template operator()<16>(); break;
    case 32: loop.template operator()<32>(); break;
    case 64: loop.template operator()<64>(); break;
    default: loop.template operator()<0>(); break;
  }
}

template <class T>
void multihead_attention_forward(T* out, T* weights, MhaWeights which, T* cache,
                                 const T* query, const T* key, const T* value,
                                 const MhaMasks<T>& masks, const MhaDropout<T>& dropout,
                                 const T* in_proj_weight, const T* in_proj_bias,
                                 const T* out_proj_weight, const T* out_proj_bias,
                                 const MhaDims& d) {
  using tensor::gemm;
  const int B = d.B, Tq = d.T, S = d.S, C = d.C, H = d.H, D = d.D;
  const MhaCacheLayout L = mha_cache_layout(d);
  T* q = cache + L.q;      // (B·T, C), row stride ld_q
  T* k = cache + L.k;      // (B·S, C), row stride ld_kv
  T* v = cache + L.v;      // (B·S, C), row stride ld_kv
  T* att = cache + L.att;  // (B, H, T, S) softmax weights before dropout
  T* y = cache + L.y;      // (B, T, C) heads concatenated
  const std::size_t BT = std::size_t(B) * Tq, BS = std::size_t(B) * S;

  // in-projection: pre-fill with the bias, then accumulate X · W^T (beta = 1)
  fill_rows_with_bias(q, L.ld_q, BT, in_proj_bias, C);
  fill_rows_with_bias(k, L.ld_kv, BS, in_proj_bias + C, C);
  fill_rows_with_bias(v, L.ld_kv, BS, in_proj_bias + 2 * C, C);
  if (query == key && key == value && Tq == S) {
    // self-attention: (B·T, C) · (C, 3C) into [q | k | v]
    gemm<T>(false, true, BT, 3 * C, C, T(1), query, C, in_proj_weight, C, T(1), q, L.ld_q);
  } else {
    gemm<T>(false, true, BT, C, C, T(1), query, C, in_proj_weight, C, T(1), q, L.ld_q);
    if (key == value) {  // encoder-decoder: (B·S, C) · (C, 2C) into [k | v]
      gemm<T>(false, true, BS, 2 * C, C, T(1), key, C, in_proj_weight + C * C, C, T(1), k, L.ld_kv);
    } else {
      gemm<T>(false, true, BS, C, C, T(1), key, C, in_proj_weight + C * C, C, T(1), k, L.ld_kv);
      gemm<T>(false, true, BS, C, C, T(1), value, C, in_proj_weight + 2 * C * C, C, T(1), v, L.ld_kv);
    }
  }

  // PyTorch divides q by sqrt(D) before the product (q / math.sqrt(head_dim));
  // we divide the dot product instead: the same value up to rounding
  if (weights == nullptr) which = MhaWeights::none;
  const T sqrt_d = std::sqrt(T(D));
  const T neg_inf = -std::numeric_limits<T>::infinity();
  if (which == MhaWeights::averaged)
    for (std::size_t n = 0; n < BT * S; ++n) weights[n] = T(0);

  // The per-head loops run over D = C / H; a compile-time D (8 in the course)
  // lets the compiler turn each of them into one vector operation.
  auto heads_loop = [&]<int DC>() {
    const int D = DC > 0 ? DC : d.D;
    for (int b = 0; b < B; ++b) {
      for (int h = 0; h < H; ++h) {
        for (int i = 0; i < Tq; ++i) {
          const std::size_t row_index = (std::size_t(b * H + h) * Tq + i) * S;
          T* p = att + row_index;                                 // (S)
          const T* qi = q + (std::size_t(b) * Tq + i) * L.ld_q + h * D;  // (D)

          // pass 1: scores q·k / sqrt(D) + float mask, -inf where blocked
          for (int j = 0; j < S; ++j) {
            const bool blocked = (masks.key_padding && masks.key_padding[std::size_t(b) * S + j]) ||
                                 (masks.attn_bool && masks.attn_bool[std::size_t(i) * S + j]);
            if (blocked) {
              p[j] = neg_inf;
              continue;
            }
            const T* kj = k + (std::size_t(b) * S + j) * L.ld_kv + h * D;
            T s = T(0);
            for (int e = 0; e < D; ++e) s += qi[e] * kj[e];
            s /= sqrt_d;  // one division per score rather than one per element of q
            if (masks.attn_float) s += masks.attn_float[std::size_t(i) * S + j];
            p[j] = s;
          }

          // pass 2: softmax (an all-blocked row becomes zeros)
          masked_softmax_row(p, S);

          // pass 3: P' = P after dropout; the returned weights are P' (as PyTorch 1.13 returns them)
          const std::uint8_t* keep = dropout.keep ? dropout.keep + row_index : nullptr;
          auto p_after = [&](int j) { return keep ? (keep[j] ? p[j] * dropout.scale : T(0)) : p[j]; };
          if (which == MhaWeights::per_head)
            for (int j = 0; j < S; ++j) weights[row_index + j] = p_after(j);
          else if (which == MhaWeights::averaged)
            for (int j = 0; j < S; ++j) weights[(std::size_t(b) * Tq + i) * S + j] += p_after(j);

          // pass 4: y_i = sum_j P'_ij v_j (e outer: the sum stays in a register;
          // accumulating into y_i in memory stalled on store-to-load forwarding)
          T* yi = y + (std::size_t(b) * Tq + i) * C + h * D;
          const T* vh = v + std::size_t(b) * S * L.ld_kv + h * D;  // v_j[e] = vh[j * ld_kv + e]
          if constexpr (DC > 0) {
            // j outer over contiguous rows of v; a constant D keeps acc in
            // registers. Each acc[e] still sums over j in ascending order, so
            // the result is bit for bit the runtime-D loop's.
            T acc[DC] = {};
            for (int j = 0; j < S; ++j) {
              const T pj = p_after(j);
              const T* vj = vh + j * L.ld_kv;
              for (int e = 0; e < DC; ++e) acc[e] += pj * vj[e];
            }
            for (int e = 0; e < DC; ++e) yi[e] = acc[e];
          } else {
            for (int e = 0; e < D; ++e) {
              T acc = T(0);
              for (int j = 0; j < S; ++j) acc += p_after(j) * vh[j * L.ld_kv + e];
              yi[e] = acc;
            }
          }
        }
      }
    }
  };
  dispatch_head_size(D, heads_loop);

  if (which == MhaWeights::averaged)  // PyTorch: weights.sum(dim=1) / num_heads
    for (std::size_t n = 0; n < BT * S; ++n) weights[n] /= T(H);

  // out-projection: out = y · Wo^T + bo
  fill_rows_with_bias(out, C, BT, out_proj_bias, C);
  gemm<T>(false, true, BT, C, C, T(1), y, C, out_proj_weight, C, T(1), out, C);
}

template <class T>
void multihead_attention_backward(T* d_query, T* d_key, T* d_value, T* d_in_proj_weight,
                                  T* d_in_proj_bias, T* d_out_proj_weight, T* d_out_proj_bias,
                                  T* scratch, const T* d_out, const T* cache, const T* query,
                                  const T* key, const T* value, const MhaDropout<T>& dropout,
                                  const T* in_proj_weight, const T* out_proj_weight,
                                  const MhaDims& d) {
  using tensor::gemm;
  const int B = d.B, Tq = d.T, S = d.S, C = d.C, H = d.H, D = d.D;
  const MhaCacheLayout L = mha_cache_layout(d);
  const T* q = cache + L.q;
  const T* k = cache + L.k;
  const T* v = cache + L.v;
  const T* att = cache + L.att;
  const T* y = cache + L.y;
  const std::size_t BT = std::size_t(B) * Tq, BS = std::size_t(B) * S;
  const std::size_t proj_size = BT * C + 2 * BS * C;
  // scratch: d(q, k, v) in the cache's projection layout, then dy (B·T, C), then one row (S)
  T* dq = scratch + L.q;
  T* dk = scratch + L.k;
  T* dv = scratch + L.v;
  T* dy = scratch + proj_size;
  T* dp = dy + BT * C;
  for (std::size_t n = 0; n < proj_size + BT * C; ++n) scratch[n] = T(0);

  // out-projection: d(bo) += sum over rows of d_out; d(Wo) (C, C) += d_out^T · y; dy = d_out · Wo
  add_column_sums(d_out_proj_bias, d_out, C, BT, C);
  gemm<T>(true, false, C, C, BT, T(1), d_out, C, y, C, T(1), d_out_proj_weight, C);
  gemm<T>(false, false, BT, C, C, T(1), d_out, C, out_proj_weight, C, T(1), dy, C);

  const T sqrt_d = std::sqrt(T(D));
  auto heads_loop = [&]<int DC>() {
    const int D = DC > 0 ? DC : d.D;
    for (int b = 0; b < B; ++b) {
      for (int h = 0; h < H; ++h) {
        for (int i = 0; i < Tq; ++i) {
          const std::size_t row_index = (std::size_t(b * H + h) * Tq + i) * S;
          const T* p = att + row_index;
          const std::uint8_t* keep = dropout.keep ? dropout.keep + row_index : nullptr;
          const T* dyi = dy + (std::size_t(b) * Tq + i) * C + h * D;
          const T* qi = q + (std::size_t(b) * Tq + i) * L.ld_q + h * D;
          T* dqi = dq + (std::size_t(b) * Tq + i) * L.ld_q + h * D;

          // pass 1: dv_j += P'_ij dy_i;  dP'_ij = dy_i · v_j;  dP = dP' * keep * scale
          for (int j = 0; j < S; ++j) {
            const T* vj = v + (std::size_t(b) * S + j) * L.ld_kv + h * D;
            T* dvj = dv + (std::size_t(b) * S + j) * L.ld_kv + h * D;
            const T factor = keep ? (keep[j] ? dropout.scale : T(0)) : T(1);
            const T pj = p[j] * factor;
            T g = T(0);
            for (int e = 0; e < D; ++e) g += dyi[e] * vj[e];
            dp[j] = g * factor;
            if (pj != T(0))
              for (int e = 0; e < D; ++e) dvj[e] += pj * dyi[e];
          }

          // pass 2: through the softmax: dscore_ij = P_ij (dP_ij - sum_k P_ik dP_ik)
          softmax_row_backward(dp, p, S);

          // pass 3: score = q_i · k_j / sqrt(D), so dq_i += sum_j dscore_ij k_j / sqrt(D)
          // (e outer: the sum stays in a register) and dk_j += dscore_ij q_i / sqrt(D)
          for (int j = 0; j < S; ++j) dp[j] /= sqrt_d;
          const T* kh = k + std::size_t(b) * S * L.ld_kv + h * D;  // k_j[e] = kh[j * ld_kv + e]
          T* dkh = dk + std::size_t(b) * S * L.ld_kv + h * D;
          if constexpr (DC > 0) {  // as in the forward's pass 4: same sums, contiguous reads
            T acc[DC] = {};
            for (int j = 0; j < S; ++j) {
              const T* kj = kh + j * L.ld_kv;
              for (int e = 0; e < DC; ++e) acc[e] += dp[j] * kj[e];
            }
            for (int e = 0; e < DC; ++e) dqi[e] += acc[e];
          } else {
            for (int e = 0; e < D; ++e) {
              T acc = T(0);
              for (int j = 0; j < S; ++j) acc += dp[j] * kh[j * L.ld_kv + e];
              dqi[e] += acc;
            }
          }
          for (int j = 0; j < S; ++j) {
            if (dp[j] == T(0)) continue;  // blocked (P = 0): nothing flows
            T* dkj = dkh + j * L.ld_kv;
            for (int e = 0; e < D; ++e) dkj[e] += dp[j] * qi[e];
          }
        }
      }
    }

  };
  dispatch_head_size(D, heads_loop);

  // in-projection biases: column sums of dq, dk, dv
  add_column_sums(d_in_proj_bias, dq, L.ld_q, BT, C);
  add_column_sums(d_in_proj_bias + C, dk, L.ld_kv, BS, C);
  add_column_sums(d_in_proj_bias + 2 * C, dv, L.ld_kv, BS, C);

  // in_proj_weight (3C, C) += [dq; dk; dv]^T · [query; key; value]
  if (query == key && key == value && Tq == S) {
    gemm<T>(true, false, 3 * C, C, BT, T(1), dq, L.ld_q, query, C, T(1), d_in_proj_weight, C);
  } else {
    gemm<T>(true, false, C, C, BT, T(1), dq, L.ld_q, query, C, T(1), d_in_proj_weight, C);
    if (key == value) {
      gemm<T>(true, false, 2 * C, C, BS, T(1), dk, L.ld_kv, key, C, T(1), d_in_proj_weight + C * C, C);
    } else {
      gemm<T>(true, false, C, C, BS, T(1), dk, L.ld_kv, key, C, T(1), d_in_proj_weight + C * C, C);
      gemm<T>(true, false, C, C, BS, T(1), dv, L.ld_kv, value, C, T(1), d_in_proj_weight + 2 * C * C, C);
    }
  }

  // inputs: d_query += dq · Wq, d_key += dk · Wk, d_value += dv · Wv
  if (d_query && d_query == d_key && d_key == d_value && Tq == S) {
    // one buffer for all three: (B·T, 3C) · (3C, C) adds their sum
    gemm<T>(false, false, BT, C, 3 * C, T(1), dq, L.ld_q, in_proj_weight, C, T(1), d_query, C);
    return;
  }
  if (d_query) gemm<T>(false, false, BT, C, C, T(1), dq, L.ld_q, in_proj_weight, C, T(1), d_query, C);
  if (d_key && d_key == d_value) {
    gemm<T>(false, false, BS, C, 2 * C, T(1), dk, L.ld_kv, in_proj_weight + C * C, C, T(1), d_key, C);
    return;
  }
  if (d_key) gemm<T>(false, false, BS, C, C, T(1), dk, L.ld_kv, in_proj_weight + C * C, C, T(1), d_key, C);
  if (d_value)
    gemm<T>(false, false, BS, C, C, T(1), dv, L.ld_kv, in_proj_weight + 2 * C * C, C, T(1), d_value, C);
}

#define ATTNLAB_MHA_INSTANTIATE(T)                                                                  \
  template void multihead_attention_forward<T>(T*, T*, MhaWeights, T*, const T*, const T*, const T*, \
                                               const MhaMasks<T>&, const MhaDropout<T>&, const T*,  \
                                               const T*, const T*, const T*, const MhaDims&);       \
  template void multihead_attention_backward<T>(T*, T*, T*, T*, T*, T*, T*, T*, const T*, const T*,  \
                                                const T*, const T*, const T*, const MhaDropout<T>&, \
                                                const T*, const T*, const MhaDims&);
ATTNLAB_MHA_INSTANTIATE(float)
ATTNLAB_MHA_INSTANTIATE(double)
#undef ATTNLAB_MHA_INSTANTIATE

}  // namespace attnlab::nn
