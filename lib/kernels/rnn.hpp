// Elman recurrent layer, as torch.nn.RNN(I, H, batch_first=True) with the
// default tanh nonlinearity, one layer, one direction, bias=True and zero h0.
//
// Source: the torch.nn.RNN documentation (1.13):
//   h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)
// Parameters as PyTorch names and shapes them:
//   weight_ih_l0 (H, I), weight_hh_l0 (H, H), bias_ih_l0 (H), bias_hh_l0 (H).
#pragma once

#include <cstddef>

#include "kernels/embedded_input.hpp"
#include "kernels/recurrent_common.hpp"

namespace attnlab::kernels {

/// Elements of the cache rnn_forward fills and rnn_backward reads:
/// 2·B·T·H + 2·B·H + 16 when B·H is a multiple of 16 (otherwise a little
/// more: blocks inside start on 64-byte boundaries, so that the SIMD gate maths
/// never falls back to scalar expf/tanhf). Throws std::invalid_argument unless
/// B, T, H >= 1.
std::size_t rnn_cache_size(int B, int T, int H);

/// Elements of the scratch rnn_backward uses: 2·B·T·H + 2·B·H + 16 when
/// B·H is a multiple of 16 (otherwise a little more, as for the cache).
/// Throws std::invalid_argument unless B, T, H >= 1.
std::size_t rnn_scratch_size(int B, int T, int H);

/// nn.RNN(I, H)'s initialisation: recurrent_init with G = 1 (docs/torch_rng.md §7).
void rnn_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
              float* bias_hh, int I, int H);

/// Forward pass over the whole sequence.
///   out (B, T, H): every hidden state h_t (out[:, T-1, :] is the last one)
///   cache (rnn_cache_size(B, T, H)): what rnn_backward needs; also the
///     forward's workspace, so pass one even when no backward follows
///   inp (B, T, I); weight_ih (H, I), weight_hh (H, H), bias_ih (H), bias_hh (H)
/// One product for the input projection of all steps, one per step for the
/// recurrence; no allocation. Throws std::invalid_argument unless B, T, I, H >= 1.
template <class Real>
void rnn_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                 const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                 int I, int H);

/// Backward through time of rnn_forward, given dout (B, T, H) = dLoss/dout
/// at every step (zeros where a step gets no gradient). ADDS into
///   dinp (B, T, I), dweight_ih (H, I), dweight_hh (H, H), dbias_ih (H), dbias_hh (H);
/// any of them may be null to skip it (dinp is null after an embedding).
///   scratch (rnn_scratch_size(B, T, H)): overwritten
///   cache: the same buffer (same address: its blocks are aligned relative
///     to it) as rnn_forward filled, with the same inp and weights
/// Throws std::invalid_argument unless B, T, I, H >= 1.
template <class Real>
void rnn_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                  Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                  const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H);

/// rnn_forward of x = inp.weight[inp.ids] (an nn.Embedding before the
/// layer) with the table folded into the input projection
/// (nn/embedded_input.hpp): V rows of products instead of B·T. out and cache
/// are bit-identical to embedding_forward then rnn_forward for floats on
/// the sgemm tiles (AVX2+FMA, tensor/sgemm_tiles.hpp), equal to rounding
/// otherwise; inp.table
/// (embedded_table_size(V, 1, H)) keeps the projected table. Throws
/// std::invalid_argument unless B, T, I, H, V >= 1, std::out_of_range for an
/// id outside [0, V) (before out or cache is written).
template <class Real>
void rnn_forward_embedded(Real* out, Real* cache, const EmbeddedInput<Real>& inp, const Real* weight_ih,
                          const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                          int I, int H);

/// rnn_backward of rnn_forward_embedded: ADDS into dweight_emb (V, I), the
/// embedding table's gradient (what embedding_backward would add from
/// dinp), and into dweight_ih, dweight_hh, dbias_ih, dbias_hh as
/// rnn_backward; any may be null. Overwrites scratch and inp.table. The
/// input-side sums are grouped by token, so they agree with the dense pass to
/// rounding, not bit for bit. Throws as rnn_forward_embedded.
template <class Real>
void rnn_backward_embedded(Real* dweight_emb, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih,
                           Real* dbias_hh, Real* scratch, const Real* dout, const Real* cache,
                           const EmbeddedInput<Real>& inp, const Real* weight_ih, const Real* weight_hh, int B,
                           int T, int I, int H);

}  // namespace attnlab::kernels
