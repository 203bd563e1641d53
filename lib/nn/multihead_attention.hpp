// Multi-head attention, forward and backward, as PyTorch 1.13's
// nn.MultiheadAttention(C, H, batch_first=True) computes it
// (torch/nn/functional.py, multi_head_attention_forward, with bias=True,
// add_bias_kv=False, add_zero_attn=False, kdim = vdim = C).
//
//   q = query · Wq^T + bq,  k = key · Wk^T + bk,  v = value · Wv^T + bv
//       where [Wq; Wk; Wv] = in_proj_weight (3C, C), [bq; bk; bv] = in_proj_bias (3C)
//   head h uses columns h*D .. h*D+D-1 of q, k, v (D = C / H)
//   scores[b,h,i,j] = q[b,i,h]·k[b,j,h] / sqrt(D) + attn_mask_float[i,j]
//                     (-inf where key_padding_mask[b,j] or attn_mask_bool[i,j])
//   P[b,h,i,:]  = softmax(scores[b,h,i,:])                         (Vaswani §3.2.1)
//   P'          = P * keep * scale  in training with dropout, else P
//   y[b,i,h]    = sum_j P'[b,h,i,j] v[b,j,h]      (heads concatenated: (B, T, C))
//   out         = y · out_proj.weight^T + out_proj.bias            (Vaswani §3.2.2)
//
// Letters: B batch, T target (query) length, S source (key/value) length,
// C = d_model = embed_dim, H heads, D = C / H head size. All tensors are
// contiguous row-major; (B, T, C) is batch_first.
//
// Deliberate deviation from PyTorch: a query row whose keys are ALL blocked
// (by key_padding_mask and/or attn_mask, or a float mask of -inf) gets zero
// attention weights and a zero head output y, so the layer's output there is
// out_proj.bias. PyTorch 1.13 returns NaN weights and a NaN output for such a
// row (softmax of all -inf). No NaN reaches any gradient here: the row's
// weights are 0, so it contributes nothing to any gradient except
// d(out_proj.bias).
//
// No heap allocation in forward or backward: the caller passes the cache
// (mha_cache_size) and the backward scratch (mha_scratch_size).
#pragma once

#include <cstddef>
#include <cstdint>

#include "random/generator.hpp"

namespace attnlab::nn {

/// The shapes of one attention call; build it with mha_dims().
struct MhaDims {
  int B = 0;  // batch
  int T = 0;  // target (query) length
  int S = 0;  // source (key/value) length
  int C = 0;  // d_model = embed_dim
  int H = 0;  // heads
  int D = 0;  // head size C / H
};

/// Checks and completes the dims (D = C / H).
/// Throws std::invalid_argument when C is not divisible by H (the message names
/// both numbers, like PyTorch's "embed_dim must be divisible by num_heads"), or
/// when any of B, T, S, C, H is not positive.
MhaDims mha_dims(int B, int T, int S, int C, int H);

/// Number of parameters of nn.MultiheadAttention(C, H): 3C·C + 3C + C·C + C
/// (4224 for C = 32, as the course prints).
std::size_t mha_parameter_count(int C);

/// Where each part of the cache lives, in elements from the cache's start.
/// The projections q, k, v are stored with a row stride (ld_q, ld_kv), so that
/// one packed product can write them:
///   T == S: one (B·T, 3C) block, row r = [q_r | k_r | v_r]:  q = 0, k = C, v = 2C,
///           ld_q = ld_kv = 3C (self-attention: a single product query · in_proj_weight^T)
///   T != S: q (B·T, C) with ld_q = C, then (B·S, 2C) rows [k_r | v_r]:
///           k = B·T·C, v = k + C, ld_kv = 2C
///   att (B, H, T, S): the softmax weights P BEFORE dropout
///   y   (B, T, C):    the heads' outputs concatenated, the input of out_proj
/// Total: mha_cache_size(d) = B·T·C + 2·B·S·C + B·H·T·S + B·T·C.
struct MhaCacheLayout {
  std::size_t q, k, v;   // offsets of element (0, 0) of each projection
  std::size_t ld_q, ld_kv;
  std::size_t att, y;
  std::size_t total;
};
MhaCacheLayout mha_cache_layout(const MhaDims& d);
std::size_t mha_cache_size(const MhaDims& d);

/// Scratch of the backward pass: the gradients of q, k, v in the cache's
/// projection layout (B·T·C + 2·B·S·C), then d(y) (B·T·C), then one row (S).
std::size_t mha_scratch_size(const MhaDims& d);

/// Optional masks, PyTorch's conventions; nullptr = absent. Any combination is
/// allowed: a score is blocked when either boolean mask blocks it, otherwise
/// the float mask is added.
template <class T>
struct MhaMasks {
  const std::uint8_t* key_padding = nullptr;  // (B, S): nonzero = key j of batch b is padding (True)
  const std::uint8_t* attn_bool = nullptr;    // (T, S): nonzero = query i may not see key j (True)
  const T* attn_float = nullptr;              // (T, S): added to the scores (may hold -inf)
};

/// Dropout on the attention weights (training mode); keep == nullptr = none.
/// keep (B, H, T, S), flat index ((b*H + h)*T + i)*S + j, nonzero = kept, as
/// Generator::dropout_mask draws it (mha_draw_dropout); a kept weight is
/// multiplied by scale = random::dropout_scale(p) = fl(1 / fl(1 - p)).
/// Backward must be given the same mask and scale as the forward pass.
template <class T>
struct MhaDropout {
  const std::uint8_t* keep = nullptr;
  T scale = T(1);
};

/// Which attention weights the forward pass returns, as PyTorch's
/// need_weights / average_attn_weights do.
enum class MhaWeights {
  none,      // need_weights=False
  averaged,  // (B, T, S): the mean over heads, sum_h P'[b,h,i,j] / H (the default)
  per_head,  // (B, H, T, S): average_attn_weights=False
};

/// Forward pass.
///   out        (B, T, C)      the attention output (attn_output)
///   weights    (B, T, S) or (B, H, T, S) per `which`; nullptr or MhaWeights::none = not wanted.
///              As in PyTorch 1.13 these are the weights AFTER dropout (the
///              tensor that multiplies v), so in training they are scaled by
///              `scale` where kept and 0 where dropped; all-blocked rows are 0.
///   cache      mha_cache_size(d) elements, written; read by the backward pass
///   query      (B, T, C);  key, value (B, S, C)
///              Self-attention passes the same pointer three times (with T == S):
///              the projection is then one (B·T, C)·(C, 3C) product; key == value
///              (encoder-decoder) uses one (B·S, C)·(C, 2C) product.
///   masks, dropout  see MhaMasks / MhaDropout (defaults: none)
///   in_proj_weight (3C, C), in_proj_bias (3C), out_proj_weight (C, C), out_proj_bias (C)
/// Source: PyTorch 1.13 multi_head_attention_forward; Vaswani et al. 2017,
/// §3.2.1 (scaled dot-product attention) and §3.2.2 (MultiHead(Q,K,V) =
/// Concat(head_1..head_h) W^O, head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)).
template <class T>
void multihead_attention_forward(T* out, T* weights, MhaWeights which, T* cache,
                                 const T* query, const T* key, const T* value,
                                 const MhaMasks<T>& masks, const MhaDropout<T>& dropout,
                                 const T* in_proj_weight, const T* in_proj_bias,
                                 const T* out_proj_weight, const T* out_proj_bias,
                                 const MhaDims& d);

/// Backward pass: ADDS (+=) the gradients of the loss into
///   d_query (B, T, C), d_key (B, S, C), d_value (B, S, C)
///   d_in_proj_weight (3C, C), d_in_proj_bias (3C), d_out_proj_weight (C, C), d_out_proj_bias (C)
/// given d_out (B, T, C), the cache of the forward pass, the same inputs,
/// dropout mask and weights. Gradients of query, key and value are kept apart;
/// for self-attention the caller either passes three buffers and sums them, or
/// passes the same pointer three times (with T == S), which is then one
/// (B·T, 3C)·(3C, C) product adding their sum. Any d_query / d_key / d_value
/// may be nullptr (not wanted). scratch: mha_scratch_size(d) elements.
/// The masks are not needed: blocked weights are 0 in the cache, so their
/// gradient is 0.
template <class T>
void multihead_attention_backward(T* d_query, T* d_key, T* d_value, T* d_in_proj_weight,
                                  T* d_in_proj_bias, T* d_out_proj_weight, T* d_out_proj_bias,
                                  T* scratch, const T* d_out, const T* cache, const T* query,
                                  const T* key, const T* value, const MhaDropout<T>& dropout,
                                  const T* in_proj_weight, const T* out_proj_weight,
                                  const MhaDims& d);

/// Draws the attention-dropout keep mask of one training forward pass in
/// PyTorch's order: one gen.dropout_mask over the B·H·T·S weights, flat index
/// ((b*H + h)*T + i)*S + j (torch_rng.md §6: one w64() per weight; p == 0 draws
/// nothing and keeps all). keep: B·H·T·S bytes. Returns the scale
/// fl(1 / fl(1 - p)) to put in MhaDropout. Throws std::invalid_argument for p
/// outside [0, 1] (from the generator).
float mha_draw_dropout(random::Generator& gen, std::uint8_t* keep, const MhaDims& d, double p);

/// Initialises the parameters exactly as nn.MultiheadAttention(C, H) does after
/// the generator's current state (torch_rng.md §7): first out_proj = Linear(C, C)
/// draws its weight uniform(±b) with b = sqrt(3)·sqrt(2/(1 + sqrt(5)^2))/sqrt(C)
/// and then its bias uniform(±1/sqrt(C)); then xavier_uniform_ fills
/// in_proj_weight with bound sqrt(3)·sqrt(2/(C + 3C)); finally in_proj_bias and
/// out_proj_bias are set to 0 (the drawn out_proj bias is overwritten, its draws
/// still consumed). Consumes 4C² + C words (4128 for C = 32).
///   in_proj_weight (3C, C), in_proj_bias (3C), out_proj_weight (C, C), out_proj_bias (C)
/// Throws std::invalid_argument when C <= 0.
void multihead_attention_init(random::Generator& gen, float* in_proj_weight, float* in_proj_bias,
                              float* out_proj_weight, float* out_proj_bias, int C);

}  // namespace attnlab::nn
