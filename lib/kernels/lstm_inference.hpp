// The LSTM forward pass for inference: the same maths as lstm_forward
// (nn/lstm.hpp: torch.nn.LSTM(I, H, batch_first=True), zero (h0, c0)) with
// no cache for a backward pass. lstm_forward keeps every step's gates, cell
// states and input projections, 11·B·T·H floats (184 MB at B = 8, T = 8192,
// H = 64); here the input projection runs a chunk of steps at a time and
// only the current step's state is kept, so the workspace does not grow with
// T. PyTorch keeps nothing either under torch.no_grad().
#pragma once

#include <cstddef>

namespace attnlab::kernels {

/// Steps whose input projection one product computes: (B·chunk, I)·(I, 4H).
inline constexpr int kLstmInferenceChunk = 64;

/// Elements of the workspace lstm_inference_forward needs: one chunk of input
/// projections (B·chunk·4H), h_{t-1}·W_hh^T (B·4H), the pre-activations and
/// gates (8·B·H), two cell states and tanh(c) (3·B·H), plus alignment slack.
/// Throws std::invalid_argument unless B, H >= 1.
std::size_t lstm_inference_workspace_size(int B, int H);

/// out (B, T, H) = every hidden state h_t, as lstm_forward computes it (the same
/// products per step and the same lane-wise gate maths; the input projection
/// in chunks of kLstmInferenceChunk steps per batch row).
///   workspace  lstm_inference_workspace_size(B, H) elements, overwritten
///   inp (B, T, I); weight_ih (4H, I), weight_hh (4H, H), bias_ih (4H), bias_hh (4H)
/// No allocation. Throws std::invalid_argument unless B, T, I, H >= 1.
template <class Real>
void lstm_inference_forward(Real* out, Real* workspace, const Real* inp, const Real* weight_ih,
                            const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                            int I, int H);

}  // namespace attnlab::kernels
