// Multiply-add counts of the layers' forward and backward passes, for
// reporting work done (GFLOP/s = 2 · multiply-adds / seconds) and for the
// heads table. Only matrix products and attention's score/mix loops are
// counted; elementwise work is O(N·C) and left out.
#pragma once

#include <cstddef>

namespace attnlab::kernels {

/// Linear over N rows, C -> OC: N·C·OC forward; backward twice that
/// (input and weight gradients).
std::size_t linear_forward_macs(std::size_t N, std::size_t C, std::size_t OC);

/// Self- or cross-attention with B batch, T queries, S keys, width C:
/// projections B·T·C·C (q) + 2·B·S·C·C (k, v) + B·T·C·C (out), scores and
/// mixing B·T·S·C each. Independent of the number of heads: splitting C into
/// H heads of C/H divides each head's work by H and multiplies the heads by H.
std::size_t mha_forward_macs(std::size_t B, std::size_t T, std::size_t S, std::size_t C);

/// Recurrent layer with G gates (1 RNN, 3 GRU, 4 LSTM) over B·T steps:
/// B·T·G·H·(I + H) forward.
std::size_t recurrent_forward_macs(std::size_t B, std::size_t T, std::size_t G, std::size_t I, std::size_t H);

/// A backward pass costs twice its forward in products (one for the input
/// gradient, one for the weights'): the usual rule, exact for these layers.
inline std::size_t backward_macs(std::size_t forward) { return 2 * forward; }

}  // namespace attnlab::kernels
