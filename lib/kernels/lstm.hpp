// Long short-term memory layer, as torch.nn.LSTM(I, H, batch_first=True) with
// one layer, one direction, bias=True and zero initial (h0, c0).
//
// Source: the torch.nn.LSTM documentation (1.13), gate order i, f, g, o:
//   i_t = σ(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)
//   f_t = σ(W_if x_t + b_if + W_hf h_{t-1} + b_hf)
//   g_t = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)
//   o_t = σ(W_io x_t + b_io + W_ho h_{t-1} + b_ho)
//   c_t = f_t ⊙ c_{t-1} + i_t ⊙ g_t
//   h_t = o_t ⊙ tanh(c_t)
// Parameters as PyTorch names and shapes them (rows in gate order i, f, g, o):
//   weight_ih_l0 (4H, I), weight_hh_l0 (4H, H), bias_ih_l0 (4H), bias_hh_l0 (4H).
#pragma once

#include <cstddef>

#include "kernels/embedded_input.hpp"
#include "kernels/recurrent_common.hpp"

namespace attnlab::kernels {

/// Elements of the cache lstm_forward fills and lstm_backward reads:
/// 11·B·T·H + 8·B·H + 16 when B·H is a multiple of 16 (otherwise a little
/// more: blocks inside start on 64-byte boundaries, so that the SIMD gate maths
/// never falls back to scalar expf/tanhf). Throws std::invalid_argument unless
/// B, T, H >= 1.
std::size_t lstm_cache_size(int B, int T, int H);

/// Elements of the scratch lstm_backward uses: 5·B·T·H + 7·B·H + 16 when
/// B·H is a multiple of 16 (otherwise a little more, as for the cache).
/// Throws std::invalid_argument unless B, T, H >= 1.
std::size_t lstm_scratch_size(int B, int T, int H);

/// nn.LSTM(I, H)'s initialisation: recurrent_init with G = 4 (docs/torch_rng.md §7).
void lstm_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
               float* bias_hh, int I, int H);

/// Forward pass over the whole sequence.
///   out (B, T, H): every hidden state h_t (out[:, T-1, :] is the last one)
///   cache (lstm_cache_size(B, T, H)): what lstm_backward needs; also the
///     forward's workspace, so pass one even when no backward follows
///   inp (B, T, I); weight_ih (4H, I), weight_hh (4H, H), bias_ih (4H), bias_hh (4H)
/// One product for the input projection of all steps, one per step for the
/// recurrence; no allocation. Throws std::invalid_argument unless B, T, I, H >= 1.
template <class Real>
void lstm_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                  const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                  int I, int H);

/// Backward through time of lstm_forward, given dout (B, T, H) = dLoss/dout
/// at every step (zeros where a step gets no gradient). ADDS into
///   dinp (B, T, I), dweight_ih (4H, I), dweight_hh (4H, H), dbias_ih (4H), dbias_hh (4H);
/// any of them may be null to skip it (dinp is null after an embedding).
///   scratch (lstm_scratch_size(B, T, H)): overwritten
///   cache: the same buffer (same address: its blocks are aligned relative
///     to it) as lstm_forward filled, with the same inp and weights
/// Throws std::invalid_argument unless B, T, I, H >= 1.
template <class Real>
void lstm_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                   Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                   const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H);

/// lstm_forward of x = inp.weight[inp.ids] (an nn.Embedding before the
/// layer) with the table folded into the input projection
/// (nn/embedded_input.hpp): V rows of products instead of B·T. out and cache
/// are bit-identical to embedding_forward then lstm_forward for floats on
/// the sgemm tiles (AVX2+FMA, tensor/sgemm_tiles.hpp), equal to rounding
/// otherwise; inp.table
/// (embedded_table_size(V, 4, H)) keeps the projected table. Throws
/// std::invalid_argument unless B, T, I, H, V >= 1, std::out_of_range for an
/// id outside [0, V) (before out or cache is written).
template <class Real>
void lstm_forward_embedded(Real* out, Real* cache, const EmbeddedInput<Real>& inp, const Real* weight_ih,
                           const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                           int I, int H);

/// lstm_backward of lstm_forward_embedded: ADDS into dweight_emb (V, I), the
/// embedding table's gradient (what embedding_backward would add from
/// dinp), and into dweight_ih, dweight_hh, dbias_ih, dbias_hh as
/// lstm_backward; any may be null. Overwrites scratch and inp.table. The
/// input-side sums are grouped by token, so they agree with the dense pass to
/// rounding, not bit for bit. Throws as lstm_forward_embedded.
template <class Real>
void lstm_backward_embedded(Real* dweight_emb, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih,
                            Real* dbias_hh, Real* scratch, const Real* dout, const Real* cache,
                            const EmbeddedInput<Real>& inp, const Real* weight_ih, const Real* weight_hh, int B,
                            int T, int I, int H);

/// Copies the last cell state c_{T-1} (B, H) out of a cache lstm_forward
/// filled: the c_n PyTorch's nn.LSTM returns (h_n is out[:, T-1, :]).
/// Throws std::invalid_argument unless B, T, H >= 1.
template <class Real>
void lstm_last_cell(Real* c_n, const Real* cache, int B, int T, int H);

}  // namespace attnlab::kernels
