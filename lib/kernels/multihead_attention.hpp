// Multi-head attention, forward and backward, as PyTorch 1.13's
// nn.MultiheadAttention(C, H, dropout, bias, add_bias_kv, add_zero_attn,
// kdim, vdim, batch_first) computes it (torch/nn/functional.py,
// multi_head_attention_forward).
//
//   q = query · Wq^T + bq,  k = key · Wk^T + bk,  v = value · Wv^T + bv
//       where [Wq; Wk; Wv] = in_proj_weight (3C, C) when kdim = vdim = C, else the
//       separate q_proj_weight (C, C), k_proj_weight (C, kdim), v_proj_weight (C, vdim);
//       [bq; bk; bv] = in_proj_bias (3C), absent with bias=False
//   add_bias_kv:   k, v get one more key per batch, bias_k / bias_v (C)
//   add_zero_attn: then one more, all zeros (in the projected space)
//       so S' = S + add_bias_kv + add_zero_attn keys are attended; the masks'
//       appended columns are False / 0 (PyTorch pads them), so these keys are
//       never blocked
//   head h uses columns h*D .. h*D+D-1 of q, k, v (D = C / H)
//   scores[b,h,i,j] = q[b,i,h]·k[b,j,h] / sqrt(D) + attn_mask_float[i,j]
//                     (-inf where key_padding_mask[b,j] or attn_mask_bool[i,j])
//   P[b,h,i,:]  = softmax(scores[b,h,i,:])                         (Vaswani §3.2.1)
//   P'          = P * keep * scale  in training with dropout, else P
//   y[b,i,h]    = sum_j P'[b,h,i,j] v[b,j,h]      (heads concatenated: (B, T, C))
//   out         = y · out_proj.weight^T + out_proj.bias            (Vaswani §3.2.2)
//
// Letters: B batch, T target (query) length, S source (key/value) length,
// S' = S + appended keys, C = d_model = embed_dim, H heads, D = C / H head
// size. All tensors are contiguous row-major. batch_first (the default here)
// means query (B, T, C), key (B, S, kdim), value (B, S, vdim), out (B, T, C);
// batch_first = false is PyTorch's default (T, B, C), (S, B, kdim), ... The
// layout only changes which row of a matrix holds (b, i): every product runs
// over all rows at once either way, and no input is copied or transposed.
// The returned weights are always (B, T, S') or (B, H, T, S').
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
#include <stdexcept>

#include "random/generator.hpp"
#include "tensor/row_share.hpp"

namespace attnlab::kernels {

/// The options of nn.MultiheadAttention that change shapes and layout
/// (dropout and bias do not: they are in MhaDropout and MhaParams).
struct MhaVariant {
  int kdim = 0;              // key width; 0 = embed_dim
  int vdim = 0;              // value width; 0 = embed_dim
  bool batch_first = true;   // false: (T, B, C) rows, PyTorch's default layout
  bool add_bias_kv = false;  // append bias_k / bias_v as one more key
  bool add_zero_attn = false;  // append a zero key and value
};

/// The shapes of one attention call; build it with mha_dims().
struct MhaDims {
  int B = 0;  // batch
  int T = 0;  // target (query) length
  int S = 0;  // source (key/value) length of the inputs
  int C = 0;  // d_model = embed_dim
  int H = 0;  // heads
  int D = 0;  // head size C / H
  int kdim = 0;  // key width (C unless kdim was given)
  int vdim = 0;  // value width (C unless vdim was given)
  bool batch_first = true;
  bool add_bias_kv = false;
  bool add_zero_attn = false;
  /// Keys attended, S' = S + add_bias_kv + add_zero_attn: the width of the weights.
  int keys() const { return S + int(add_bias_kv) + int(add_zero_attn); }
};

/// Checks and completes the dims (D = C / H; kdim = vdim = C; batch_first).
/// Throws std::invalid_argument when C is not divisible by H (the message names
/// both numbers, like PyTorch's "embed_dim must be divisible by num_heads"), or
/// when any of B, T, S, C, H is not positive.
MhaDims mha_dims(int B, int T, int S, int C, int H);
/// The same with the options of `v`; throws std::invalid_argument also for a
/// negative kdim or vdim.
MhaDims mha_dims(int B, int T, int S, int C, int H, const MhaVariant& v);

/// Number of parameters of nn.MultiheadAttention(C, H): 3C·C + 3C + C·C + C
/// (4224 for C = 32, as the course prints).
std::size_t mha_parameter_count(int C);
/// The same for any options: C·(C + kdim + vdim) + C·C, plus 3C + C with a
/// bias, plus 2C with add_bias_kv.
std::size_t mha_parameter_count(int C, int kdim, int vdim, bool bias, bool add_bias_kv);

/// Where each part of the cache lives, in elements from the cache's start.
/// The projections q, k, v are stored with a row stride (ld_q, ld_kv), so that
/// one packed product can write them:
///   T == S' == S: one (B·T, 3C) block, row r = [q_r | k_r | v_r]:  q = 0, k = C,
///           v = 2C, ld_q = ld_kv = 3C (self-attention: a single product
///           query · in_proj_weight^T)
///   else:   q (B·T, C) with ld_q = C, then (B·S', 2C) rows [k_r | v_r]:
///           k = B·T·C, v = k + C, ld_kv = 2C
///   att (B, H, T, S'): the softmax weights P BEFORE dropout
///   y   (B·T, C):      the heads' outputs concatenated, the input of out_proj
/// Rows follow the inputs' layout: query (b, i) is row b·T + i batch-first,
/// i·B + b otherwise (the strides q_b, q_i below, in elements); key (b, j) is
/// row b·S' + j or j·B + b (kv_b, kv_j), so an appended key sits at j >= S;
/// y and out rows are query rows with stride C (y_b, y_i).
///   tile: the per-head forward's working space (nn/mha_heads.hpp,
///         mha_forward_tile_size), not read by the backward pass
/// Total: mha_cache_size(d) = B·T·C + 2·B·S'·C + B·H·T·S' + B·T·C + tile.
/// with_weights = false leaves att and the tile out (both have size 0 and y
/// follows the projections): the layout of the flash forward's workspace
/// (nn/flash_attention.hpp), which never holds a (T, S') block.
struct MhaCacheLayout {
  std::size_t q, k, v;   // offsets of element (0, 0) of each projection
  std::size_t ld_q, ld_kv;
  std::size_t att, y, tile;
  std::size_t total;
  std::size_t q_b, q_i, kv_b, kv_j, y_b, y_i;  // element strides of row (b, i) / (b, j)
};
MhaCacheLayout mha_cache_layout(const MhaDims& d, bool with_weights = true);
std::size_t mha_cache_size(const MhaDims& d);

/// Scratch of the backward pass: the gradients of q, k, v in the cache's
/// projection layout (B·T·C + 2·B·S'·C), then d(y) (B·T·C), then the per-head
/// backward's tile (nn/mha_heads.hpp, mha_backward_tile_size).
std::size_t mha_scratch_size(const MhaDims& d);

/// Optional masks, PyTorch's conventions; nullptr = absent. Any combination is
/// allowed: a score is blocked when any boolean mask (or `causal`) blocks it, otherwise
/// the float mask is added. The masks cover the S input keys; appended keys
/// (add_bias_kv, add_zero_attn) are never masked, as PyTorch pads the masks
/// with False / 0.
template <class T>
struct MhaMasks {
  const std::uint8_t* key_padding = nullptr;  // (B, S): nonzero = key j of batch b is padding (True)
  const std::uint8_t* attn_bool = nullptr;    // (T, S): nonzero = query i may not see key j (True)
  const T* attn_float = nullptr;              // (T, S): added to the scores (may hold -inf)
  bool attn_per_head = false;  // attn_bool / attn_float are (B·H, T, S), block b·H + h (3-D attn_mask)
  bool causal = false;  // query i may not see key j > i: attn_mask = triu(ones(T, S), 1), without the mask's memory
};

/// The parameters of one layer, by role; what PyTorch's state_dict names them.
/// Packed weights (in_proj_weight) are q_proj_weight = in_proj_weight,
/// k = q + C·C, v = k + C·C: mha_packed() builds that, and the forward pass
/// then fuses the products (one for self-attention, one for k and v when key
/// is value) exactly as PyTorch's _in_projection_packed chooses them.
template <class T>
struct MhaParams {
  const T* q_proj_weight = nullptr;   // (C, C)
  const T* k_proj_weight = nullptr;   // (C, kdim)
  const T* v_proj_weight = nullptr;   // (C, vdim)
  const T* in_proj_bias = nullptr;    // (3C) [bq; bk; bv], nullptr with bias=False
  const T* bias_k = nullptr;          // (C), add_bias_kv only (PyTorch's (1, 1, C))
  const T* bias_v = nullptr;          // (C), add_bias_kv only
  const T* out_proj_weight = nullptr;  // (C, C)
  const T* out_proj_bias = nullptr;    // (C), nullptr with bias=False
};

/// Gradient buffers in the same roles; the backward pass ADDS into them.
/// Any may be nullptr (not wanted, or the parameter does not exist).
template <class T>
struct MhaGrads {
  T* q_proj_weight = nullptr;
  T* k_proj_weight = nullptr;
  T* v_proj_weight = nullptr;
  T* in_proj_bias = nullptr;
  T* bias_k = nullptr;
  T* bias_v = nullptr;
  T* out_proj_weight = nullptr;
  T* out_proj_bias = nullptr;
};

/// Roles of a packed in_proj_weight (3C, C) and in_proj_bias (3C).
template <class T>
MhaParams<T> mha_packed(const T* in_proj_weight, const T* in_proj_bias, const T* out_proj_weight,
                        const T* out_proj_bias, int C) {
  const std::size_t cc = std::size_t(C) * C;
  return {in_proj_weight, in_proj_weight + cc, in_proj_weight + 2 * cc, in_proj_bias,
          nullptr,        nullptr,             out_proj_weight,         out_proj_bias};
}
template <class T>
MhaGrads<T> mha_packed_grads(T* in_proj_weight, T* in_proj_bias, T* out_proj_weight, T* out_proj_bias, int C) {
  const std::size_t cc = std::size_t(C) * C;
  return {in_proj_weight, in_proj_weight + cc, in_proj_weight + 2 * cc, in_proj_bias,
          nullptr,        nullptr,             out_proj_weight,         out_proj_bias};
}

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

/// Forward pass, every option.
///   out        (B, T, C) batch-first, else (T, B, C): the attention output (attn_output)
///   weights    (B, T, S') or (B, H, T, S') per `which`; nullptr or MhaWeights::none = not wanted.
///              As in PyTorch 1.13 these are the weights AFTER dropout (the
///              tensor that multiplies v), so in training they are scaled by
///              `scale` where kept and 0 where dropped; all-blocked rows are 0.
///   cache      mha_cache_size(d) elements, written; read by the backward pass
///   query      (B, T, C);  key (B, S, kdim), value (B, S, vdim)  (or sequence-first)
///              With packed weights (mha_packed), self-attention passing the same
///              pointer three times (T == S, nothing appended) projects with one
///              (B·T, C)·(C, 3C) product, and key == value with one (B·S, C)·(C, 2C)
///              product, as PyTorch's _in_projection_packed does; otherwise one
///              product per projection.
///   masks, dropout  see MhaMasks / MhaDropout (defaults: none)
///   p          the parameters (MhaParams); biases and bias_k/bias_v may be nullptr
///              (bias_k/bias_v must be given when d.add_bias_kv)
/// Source: PyTorch 1.13 multi_head_attention_forward; Vaswani et al. 2017,
/// §3.2.1 (scaled dot-product attention) and §3.2.2 (MultiHead(Q,K,V) =
/// Concat(head_1..head_h) W^O, head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)).
template <class T>
void mha_forward(T* out, T* weights, MhaWeights which, T* cache, const T* query, const T* key, const T* value,
                 const MhaMasks<T>& masks, const MhaDropout<T>& dropout, const MhaParams<T>& p, const MhaDims& d);

/// The two ends of mha_forward, shared with the flash forward
/// (nn/flash_attention.hpp): the input projections (and appended keys) into q,
/// k, v of `cache` laid out as L says, with the same fused products; and
/// out (B·T, C) = y · out_proj_weight^T + out_proj_bias, y (B·T, C) in out's row order.
/// mha_in_projection throws std::invalid_argument when add_bias_kv lacks bias_k / bias_v
/// (mha_check_bias_kv, which a caller can run first to know the call will not throw).
///   share  the part of every product's rows to compute (tensor/row_share.hpp),
///          so that threads can split them: the parts together write what the
///          whole call writes, to the byte; part 0 also writes the appended keys.
template <class T>
void mha_check_bias_kv(const MhaParams<T>& p, const MhaDims& d) {
  if (d.add_bias_kv && (!p.bias_k || !p.bias_v))
    throw std::invalid_argument("multihead attention: add_bias_kv needs bias_k and bias_v");
}
template <class T>
void mha_in_projection(T* cache, const MhaCacheLayout& L, const T* query, const T* key, const T* value,
                       const MhaParams<T>& p, const MhaDims& d, tensor::RowShare share = {});
template <class T>
void mha_out_projection(T* out, const T* y, const MhaParams<T>& p, const MhaDims& d, tensor::RowShare share = {});

/// The first half of mha_backward, shared with the distinct-rows self-attention
/// (nn/mha_distinct_rows.hpp): ADDS the out-projection's gradients into g and
/// runs the heads' backward, leaving d(q, k, v) in scratch's projection
/// layout (the cache's: offsets L.q, L.k, L.v and strides L.ld_q, L.ld_kv of
/// mha_cache_layout(d)). Everything else in scratch is overwritten.
template <class T>
void mha_backward_to_projections(const MhaGrads<T>& g, T* scratch, const T* d_out, const T* cache,
                                 const MhaDropout<T>& dropout, const MhaParams<T>& p, const MhaDims& d);

/// Backward pass of mha_forward: ADDS (+=) the gradients of the loss into
///   d_query, d_key, d_value (the inputs' shapes and layout) and the parameter
///   gradients `g` (MhaGrads: any entry may be nullptr)
/// given d_out (the shape of out), the cache of the forward pass, the same
/// inputs, dropout mask and parameters. Gradients of query, key and value are
/// kept apart; for self-attention with packed weights the caller may pass the
/// same pointer three times (with T == S), which is then one (B·T, 3C)·(3C, C)
/// product adding their sum (any other aliasing also adds correctly, one
/// product at a time). Any d_query / d_key / d_value may be nullptr (not
/// wanted). The appended zero key of add_zero_attn gets no gradient (it is a
/// constant). scratch: mha_scratch_size(d) elements.
/// The masks are not needed: blocked weights are 0 in the cache, so their
/// gradient is 0.
template <class T>
void mha_backward(T* d_query, T* d_key, T* d_value, const MhaGrads<T>& g, T* scratch, const T* d_out,
                  const T* cache, const T* query, const T* key, const T* value, const MhaDropout<T>& dropout,
                  const MhaParams<T>& p, const MhaDims& d);

/// mha_forward with packed in_proj_weight (3C, C), in_proj_bias (3C),
/// out_proj_weight (C, C), out_proj_bias (C): the course's layer.
template <class T>
void multihead_attention_forward(T* out, T* weights, MhaWeights which, T* cache,
                                 const T* query, const T* key, const T* value,
                                 const MhaMasks<T>& masks, const MhaDropout<T>& dropout,
                                 const T* in_proj_weight, const T* in_proj_bias,
                                 const T* out_proj_weight, const T* out_proj_bias,
                                 const MhaDims& d) {
  mha_forward(out, weights, which, cache, query, key, value, masks, dropout,
              mha_packed(in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, d.C), d);
}

/// mha_backward with packed weights: ADDS into d_query, d_key, d_value,
/// d_in_proj_weight (3C, C), d_in_proj_bias (3C), d_out_proj_weight (C, C),
/// d_out_proj_bias (C).
template <class T>
void multihead_attention_backward(T* d_query, T* d_key, T* d_value, T* d_in_proj_weight,
                                  T* d_in_proj_bias, T* d_out_proj_weight, T* d_out_proj_bias,
                                  T* scratch, const T* d_out, const T* cache, const T* query,
                                  const T* key, const T* value, const MhaDropout<T>& dropout,
                                  const T* in_proj_weight, const T* out_proj_weight,
                                  const MhaDims& d) {
  mha_backward(d_query, d_key, d_value,
               mha_packed_grads(d_in_proj_weight, d_in_proj_bias, d_out_proj_weight, d_out_proj_bias, d.C), scratch,
               d_out, cache, query, key, value, dropout,
               mha_packed<T>(in_proj_weight, nullptr, out_proj_weight, nullptr, d.C), d);
}

/// Draws the attention-dropout keep mask of one training forward pass in
/// PyTorch's order: one gen.dropout_mask over the B·H·T·S' weights, flat index
/// ((b*H + h)*T + i)*S' + j (docs/torch_rng.md §6: one w64() per weight; p == 0 draws
/// nothing and keeps all). keep: B·H·T·S' bytes. Returns the scale
/// fl(1 / fl(1 - p)) to put in MhaDropout. Throws std::invalid_argument for p
/// outside [0, 1] (from the generator).
float mha_draw_dropout(random::Generator& gen, std::uint8_t* keep, const MhaDims& d, double p);

/// Initialises the parameters exactly as nn.MultiheadAttention(C, H) does after
/// the generator's current state (docs/torch_rng.md §7): first out_proj = Linear(C, C)
/// draws its weight uniform(±b) with b = sqrt(3)·sqrt(2/(1 + sqrt(5)^2))/sqrt(C)
/// and then its bias uniform(±1/sqrt(C)); then xavier_uniform_ fills
/// in_proj_weight with bound sqrt(3)·sqrt(2/(C + 3C)); finally in_proj_bias and
/// out_proj_bias are set to 0 (the drawn out_proj bias is overwritten, its draws
/// still consumed). Consumes 4C² + C words (4128 for C = 32).
///   in_proj_weight (3C, C), in_proj_bias (3C), out_proj_weight (C, C), out_proj_bias (C)
/// Throws std::invalid_argument when C <= 0.
void multihead_attention_init(random::Generator& gen, float* in_proj_weight, float* in_proj_bias,
                              float* out_proj_weight, float* out_proj_bias, int C);

/// The same for every option, in PyTorch 1.13's order (torch/nn/modules/
/// activation.py, MultiheadAttention.__init__ and _reset_parameters):
///  1. out_proj = Linear(C, C, bias=bias) initialises itself: weight C·C words
///     (kaiming_uniform_), then, with a bias, C words for its bias;
///  2. xavier_uniform_ on in_proj_weight (fan_in C, fan_out 3C) when the
///     weights are packed (p.k_proj_weight == p.q_proj_weight + C·C, kdim =
///     vdim = C), else on q_proj_weight (C, C), k_proj_weight (fan_in kdim,
///     fan_out C), v_proj_weight (fan_in vdim) in that order;
///  3. with a bias, in_proj_bias and out_proj.bias = 0;
///  4. with add_bias_kv, xavier_normal_ on bias_k then bias_v, each (1, 1, C):
///     fan_in = fan_out = C, so normal_(0, sqrt(2 / 2C)) over C values.
/// `p` names the buffers to fill (an MhaGrads, for its writable pointers);
/// the biases and bias_k/bias_v are nullptr when absent. Throws
/// std::invalid_argument when C, kdim or vdim <= 0.
void mha_init(random::Generator& gen, const MhaGrads<float>& p, int C, int kdim, int vdim);

}  // namespace attnlab::kernels
