// One step of a gated recurrent unit with a given previous state, as
// torch.nn.GRUCell(I, H) (bias=True): the decoder cell of the translation
// models, which must start from the encoder's state and whose input at a
// step may depend on the previous step (attention context, greedy decoding).
//
// Source: the torch.nn.GRUCell documentation (1.13), gate order r, z, n:
//   r = σ(W_ir x + b_ir + W_hr h + b_hr)
//   z = σ(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))
//   h' = (1 - z) ⊙ n + z ⊙ h, evaluated as (h - n) ⊙ z + n as PyTorch's CPU cell does.
// Parameters as PyTorch names and shapes them: weight_ih (3H, I),
// weight_hh (3H, H), bias_ih (3H), bias_hh (3H); initialised as nn.GRU's
// (gru_init: uniform(-1/sqrt(H), 1/sqrt(H)) in that order).
#pragma once

#include <cstddef>

namespace attnlab::kernels {

/// Elements of the cache of one step: gates (B, 3H) = r | z | n per row and
/// hn (B, H) = W_hn h + b_hn, 4·B·H.
std::size_t gru_cell_cache_size(int B, int H);
/// Elements of the scratch of one backward step: 6·B·H.
std::size_t gru_cell_scratch_size(int B, int H);

/// h_out (B, H) = GRUCell(x (B, I), h (B, H)); cache (gru_cell_cache_size)
/// keeps the gates for the backward pass and is also the workspace. h_out
/// must not alias h. Throws std::invalid_argument unless B, I, H >= 1.
template <class Real>
void gru_cell_forward(Real* h_out, Real* cache, const Real* x, const Real* h, const Real* weight_ih,
                      const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int I, int H);

/// Backward of one step given dh_out (B, H); ADDS into dx (B, I), dh (B, H),
/// dweight_ih, dweight_hh, dbias_ih, dbias_hh (each may be null to skip it).
/// scratch (gru_cell_scratch_size) is overwritten; cache, x and h as the
/// forward had them. Throws std::invalid_argument unless B, I, H >= 1.
template <class Real>
void gru_cell_backward(Real* dx, Real* dh, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                       Real* scratch, const Real* dh_out, const Real* cache, const Real* x, const Real* h,
                       const Real* weight_ih, const Real* weight_hh, int B, int I, int H);

}  // namespace attnlab::kernels
