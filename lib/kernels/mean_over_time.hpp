// Mean over the time axis, h.mean(dim=1) on a batch-first (B, T, C) tensor.
#pragma once

namespace attnlab::kernels {

// The scalar is called Real here because T names the time dimension.

/// Forward pass: out[b, c] = (sum_t inp[b, t, c]) / T, summed in t order and
/// then divided, as PyTorch's mean (sum, then div by the count).
///   out (B, C), inp (B, T, C).
/// Throws std::invalid_argument unless B, T, C >= 1.
/// Source: torch.mean documentation; the course's AttentionClassifier
/// (13_positions_vs_none.py: self.head(h.mean(dim=1))).
template <class Real>
void mean_over_time_forward(Real* out, const Real* inp, int B, int T, int C);

/// Backward pass: ADDS dout[b, c] / T into dinp[b, t, c] for every t; with
/// write_dinp, writes it (the same bytes as adding into zeros, no fill).
///   dinp (B, T, C), dout (B, C).
/// Throws std::invalid_argument unless B, T, C >= 1.
template <class Real>
void mean_over_time_backward(Real* dinp, const Real* dout, int B, int T, int C, bool write_dinp = false);

}  // namespace attnlab::kernels
