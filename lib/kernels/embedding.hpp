// Lookup tables: token embeddings (torch.nn.Embedding) and learned position
// embeddings (an nn.Embedding over positions 0..T-1 added to the tokens).
#pragma once

#include <cstdint>

namespace attnlab::random {
class Generator;
}

namespace attnlab::kernels {

/// Forward pass of an embedding table: out[n, :] = weight[ids[n], :].
///   out (N, D), ids (N) int32 in [0, V), weight (V, D).
/// Throws std::invalid_argument unless N, V, D >= 1, and std::out_of_range
/// (naming the position and the id) when an id is outside [0, V), as
/// PyTorch raises IndexError; out is then partly written.
/// Source: torch.nn.Embedding documentation.
template <class T>
void embedding_forward(T* out, const std::int32_t* ids, const T* weight, int N, int V, int D);

/// Backward pass of embedding_forward: ADDS dout[n, :] into dweight[ids[n], :]
/// (a scatter-add, so a repeated id accumulates every row it was used for).
///   dweight (V, D), dout (N, D), ids (N).
/// Throws std::invalid_argument unless N, V, D >= 1, std::out_of_range for
/// an id outside [0, V) (checked before anything is written).
/// Source: the derivative of a gather; PyTorch's embedding_dense_backward.
template <class T>
void embedding_backward(T* dweight, const T* dout, const std::int32_t* ids, int N, int V, int D);

// The scalar is called Real below because T names the time dimension.

/// Learned positions, in place: x[b, t, :] += weight[t, :] for t < T, i.e.
/// x + pos(torch.arange(T)) broadcast over the batch.
///   x (B, T, D), weight (P, D): the position table of P >= T rows.
/// Throws std::invalid_argument unless B, T, D, P >= 1 and T <= P (PyTorch
/// raises IndexError for a position beyond the table).
/// Source: the course's AttentionClassifier (13_positions_vs_none.py),
/// torch.nn.Embedding documentation.
template <class Real>
void position_embedding_forward(Real* x, const Real* weight, int B, int T, int D, int P);

/// Backward pass of position_embedding_forward: ADDS the batch sum
///   dweight[t, :] += sum_b dout[b, t, :]   for t < T,
/// dweight (P, D), dout (B, T, D). The gradient with respect to x is dout
/// itself (the add is the identity in x), so nothing is written for it.
/// Throws std::invalid_argument as position_embedding_forward.
template <class Real>
void position_embedding_backward(Real* dweight, const Real* dout, int B, int T, int D, int P);

/// PyTorch's nn.Embedding(V, D) initialisation: normal_(0, 1) over the whole
/// (V, D) weight in one call (docs/torch_rng.md §7; §4 for the draws).
/// Throws std::invalid_argument unless V, D >= 1.
/// Source: torch/nn/modules/sparse.py reset_parameters.
void embedding_init(random::Generator& gen, float* weight, int V, int D);

}  // namespace attnlab::kernels
