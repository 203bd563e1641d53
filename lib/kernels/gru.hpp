// Gated recurrent unit layer, as torch.nn.GRU(I, H, batch_first=True) with
// one layer, one direction, bias=True and zero initial h0.
//
// Source: the torch.nn.GRU documentation (1.13), gate order r, z, n:
//   r_t = σ(W_ir x_t + b_ir + W_hr h_{t-1} + b_hr)
//   z_t = σ(W_iz x_t + b_iz + W_hz h_{t-1} + b_hz)
//   n_t = tanh(W_in x_t + b_in + r_t ⊙ (W_hn h_{t-1} + b_hn))
//   h_t = (1 - z_t) ⊙ n_t + z_t ⊙ h_{t-1}
// b_hn sits inside the reset product, so unlike the LSTM the two biases are
// not interchangeable. h_t is evaluated as (h_{t-1} - n_t) ⊙ z_t + n_t, as
// PyTorch's CPU GRUCell does.
// Parameters as PyTorch names and shapes them (rows in gate order r, z, n):
//   weight_ih_l0 (3H, I), weight_hh_l0 (3H, H), bias_ih_l0 (3H), bias_hh_l0 (3H).
#pragma once

#include <cstddef>

#include "kernels/embedded_input.hpp"
#include "kernels/recurrent_common.hpp"

namespace attnlab::kernels {

/// Elements of the cache gru_forward fills and gru_backward reads:
/// 8·B·T·H + 6·B·H + 16 when B·H is a multiple of 16 (otherwise a little
/// more: blocks inside start on 64-byte boundaries, so that the SIMD gate maths
/// never falls back to scalar expf/tanhf). Throws std::invalid_argument unless
/// B, T, H >= 1.
std::size_t gru_cache_size(int B, int T, int H);

/// Elements of the scratch gru_backward uses: 7·B·T·H + 6·B·H + 16 when
/// B·H is a multiple of 16 (otherwise a little more, as for the cache).
/// Throws std::invalid_argument unless B, T, H >= 1.
std::size_t gru_scratch_size(int B, int T, int H);

/// nn.GRU(I, H)'s initialisation: recurrent_init with G = 3 (docs/torch_rng.md §7).
void gru_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
              float* bias_hh, int I, int H);

/// Forward pass over the whole sequence.
///   out (B, T, H): every hidden state h_t (out[:, T-1, :] is the last one)
///   cache (gru_cache_size(B, T, H)): what gru_backward needs; also the
///     forward's workspace, so pass one even when no backward follows
///   inp (B, T, I); weight_ih (3H, I), weight_hh (3H, H), bias_ih (3H), bias_hh (3H)
/// One product for the input projection of all steps, one per step for the
/// recurrence; no allocation. Throws std::invalid_argument unless B, T, I, H >= 1.
template <class Real>
void gru_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                 const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                 int I, int H);

/// Backward through time of gru_forward, given dout (B, T, H) = dLoss/dout
/// at every step (zeros where a step gets no gradient). ADDS into
///   dinp (B, T, I), dweight_ih (3H, I), dweight_hh (3H, H), dbias_ih (3H), dbias_hh (3H);
/// any of them may be null to skip it (dinp is null after an embedding).
///   scratch (gru_scratch_size(B, T, H)): overwritten
///   cache: the same buffer (same address: its blocks are aligned relative
///     to it) as gru_forward filled, with the same inp and weights
/// Throws std::invalid_argument unless B, T, I, H >= 1.
template <class Real>
void gru_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                  Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                  const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H);

/// gru_forward of x = inp.weight[inp.ids] (an nn.Embedding before the
/// layer) with the table folded into the input projection
/// (nn/embedded_input.hpp): V rows of products instead of B·T. out and cache
/// are bit-identical to embedding_forward then gru_forward for floats on
/// the sgemm tiles (AVX2+FMA, tensor/sgemm_tiles.hpp), equal to rounding
/// otherwise; inp.table
/// (embedded_table_size(V, 3, H)) keeps the projected table. Throws
/// std::invalid_argument unless B, T, I, H, V >= 1, std::out_of_range for an
/// id outside [0, V) (before out or cache is written).
template <class Real>
void gru_forward_embedded(Real* out, Real* cache, const EmbeddedInput<Real>& inp, const Real* weight_ih,
                          const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                          int I, int H);

/// gru_backward of gru_forward_embedded: ADDS into dweight_emb (V, I), the
/// embedding table's gradient (what embedding_backward would add from
/// dinp), and into dweight_ih, dweight_hh, dbias_ih, dbias_hh as
/// gru_backward; any may be null. Overwrites scratch and inp.table. The
/// input-side sums are grouped by token, so they agree with the dense pass to
/// rounding, not bit for bit. Throws as gru_forward_embedded.
template <class Real>
void gru_backward_embedded(Real* dweight_emb, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih,
                           Real* dbias_hh, Real* scratch, const Real* dout, const Real* cache,
                           const EmbeddedInput<Real>& inp, const Real* weight_ih, const Real* weight_hh, int B,
                           int T, int I, int H);

}  // namespace attnlab::kernels
