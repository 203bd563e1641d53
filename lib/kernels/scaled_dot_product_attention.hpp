// Scaled dot-product attention without projections, Vaswani et al. 2017,
// §3.2.1, eq. (1): Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V, as
// PyTorch 1.13's torch._C._nn._scaled_dot_product_attention (the form of
// F.scaled_dot_product_attention that also returns the weights) computes it.
//
//   s[b,i,j] = q[b,i]·k[b,j] / sqrt(E) + mask_float[i,j]   (-inf where blocked)
//   P[b,i,:] = softmax(s[b,i,:])
//   out[b,i] = sum_j P[b,i,j] v[b,j]
//
// Letters: B batches (every leading dimension flattened), L queries, S keys,
// E the query/key width (d_k), Ev the value width. All row-major, contiguous.
// A query row with every key blocked gets zero weights and a zero output
// (PyTorch: NaN), as in multihead_attention.hpp.
#pragma once

#include <cstdint>

namespace attnlab::kernels {

/// Masks, PyTorch's conventions FOR THIS FUNCTION: a boolean mask says which
/// keys TAKE PART (nonzero = attend, zero = blocked) — the reverse of
/// nn.MultiheadAttention's attn_mask — and a float mask is added to the scores.
/// Each is (L, S), or (B, L, S) with per_batch. causal blocks key j > i
/// (is_causal: torch.triu(ones(L, S), 1) blocked, top-left aligned).
template <class T>
struct SdpaMask {
  const std::uint8_t* keep = nullptr;
  const T* add = nullptr;
  bool per_batch = false;
  bool causal = false;
};

/// Forward pass.
///   out (B, L, Ev), weights (B, L, S) (written; the backward pass needs them)
///   q (B, L, E), k (B, S, E), v (B, S, Ev)
/// Throws std::invalid_argument unless B, L, S, E, Ev >= 1.
template <class T>
void sdpa_forward(T* out, T* weights, const T* q, const T* k, const T* v, const SdpaMask<T>& mask, int B, int L,
                  int S, int E, int Ev);

/// Backward pass: ADDS into dq (B, L, E), dk (B, S, E), dv (B, S, Ev) (any may
/// be nullptr) the gradients of a loss given dout (B, L, Ev) and, when the
/// weights themselves feed the loss, dweights (B, L, S) (nullptr = none), with
/// the forward's weights and inputs. scratch: S elements. Blocked weights are
/// 0, so no mask is needed and no NaN can enter.
template <class T>
void sdpa_backward(T* dq, T* dk, T* dv, T* scratch, const T* dout, const T* dweights, const T* weights, const T* q,
                   const T* k, const T* v, int B, int L, int S, int E, int Ev);

}  // namespace attnlab::kernels
