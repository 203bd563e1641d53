// The per-head part of multi-head attention, between the projections:
//   forward   P = softmax(q·k^T / sqrt(D) + mask), P' = dropout(P), y = P'·v
//   backward  dv = P'^T·dy, dP = (dy·v^T) ∘ keep·scale, dS = P ∘ (dP − rowsum(P ∘ dP)),
//             dq = dS·k / sqrt(D), dk = dS^T·q / sqrt(D)
// for every batch b and head h, reading q, k, v and writing y where the
// cache layout (nn/multihead_attention.hpp, MhaCacheLayout) puts them.
//
// Two versions sit side by side, as the style guide asks of a fast path:
//   *_reference  one query row at a time, one key at a time: the loops as the
//                equations read (what the finite-difference and PyTorch tests
//                were first written against);
//   tiled        what mha_forward / mha_backward run: a block of up to 64
//                query rows against all of a head's keys, the four products
//                as register-blocked loops (nn/flash_kernels.hpp) over keys
//                packed transposed once per head, and the softmax and its
//                backward on whole registers with a vector exp
//                (nn/softmax_kernels.hpp). At the course's sizes (D = 8,
//                S = 8) the reference spent a horizontal sum per score and a
//                libm expf per weight; perf on `positions` put the reference
//                loops at 40 % of a training step. A tile of 8 queries and
//                8 keys without masks is worked by columns in the forward
//                (scores^T, so the softmax is lane-wise: head_softmax_rows.hpp).
// tests/kernels/mha_heads_test.cpp holds the two equal within float rounding for
// every mask, dropout, appended key, layout and head size. The tiled
// version's sums run in a fixed order (per element, keys or query rows
// ascending; the softmax sums in fixed lanes), so its bytes depend on
// neither the buffers' addresses nor the thread.
#pragma once

#include <cstddef>
#include <limits>

#include "kernels/multihead_attention.hpp"

namespace attnlab::kernels {

/// Elements of the per-head tile of the forward pass (the cache's part past
/// y, MhaCacheLayout::tile): one head's keys transposed (D, S' padded to 8)
/// and one block of scores (min(T, 64), S' padded to 8).
std::size_t mha_forward_tile_size(const MhaDims& d);

/// Elements of the per-head tile of the backward pass (the scratch's part past
/// dy): one head's values transposed, one block of dP (as the forward's
/// tile), and P'^T and dS^T of one block (S' padded to 8, min(T, 64)) each.
std::size_t mha_backward_tile_size(const MhaDims& d);

/// Forward: from q, k, v of `cache` (laid out as L = mha_cache_layout(d)),
/// writes att (B, H, T, S') = P, y (B·T, C) and, per `which`, weights:
/// per_head (B, H, T, S') = P'; averaged (B, T, S') += P' (the caller zeroes
/// it before and divides by H after). Blocked scores are -inf; a row with
/// every key blocked gets P = 0 and y = 0. Uses cache[L.tile ...] as its tile.
template <class T>
void mha_heads_forward(T* cache, const MhaCacheLayout& L, T* weights, MhaWeights which, const MhaMasks<T>& masks,
                       const MhaDropout<T>& dropout, const MhaDims& d);
template <class T>
void mha_heads_forward_reference(T* cache, const MhaCacheLayout& L, T* weights, MhaWeights which,
                                 const MhaMasks<T>& masks, const MhaDropout<T>& dropout, const MhaDims& d);

/// Backward: WRITES dq, dk, dv of `grads` (the cache's projection layout,
/// rows strided as q, k, v are; every element of the B·T query rows and B·S'
/// key rows, C columns each) given dy (B·T, C) in y's row order and the
/// forward's cache, so the caller need not zero them (a 256 KB fill per
/// step at positions' size). tile: mha_backward_tile_size(d) elements,
/// overwritten. The reference ADDS into them instead (its loops are the
/// equations; tests zero its gradients first).
template <class T>
void mha_heads_backward(T* grads, const T* dy, T* tile, const T* cache, const MhaCacheLayout& L,
                        const MhaDropout<T>& dropout, const MhaDims& d);
template <class T>
void mha_heads_backward_reference(T* grads, const T* dy, T* tile, const T* cache, const MhaCacheLayout& L,
                                  const MhaDropout<T>& dropout, const MhaDims& d);

namespace detail {

/// Applies the masks to one row of scores (query i of batch b, head h), as
/// every path does: input keys j < S that a mask blocks become -inf, the
/// others get the float mask added; appended keys (j >= S) are never masked.
/// The row holds keys j0 .. j0 + n_keys − 1 (the flash forward's tiles start
/// anywhere; the weighted path passes j0 = 0).
template <class T>
inline void mask_scores_row(T* row, int i, int b, int h, int j0, int n_keys, const MhaMasks<T>& masks,
                            const MhaDims& d) {
  const int S_in = d.S;
  const std::size_t mask_block = masks.attn_per_head ? std::size_t(d.T) * S_in : 0;
  const std::size_t mask_row = std::size_t(b * d.H + h) * mask_block + std::size_t(i) * S_in;
  int n_in = n_keys < S_in - j0 ? n_keys : (S_in - j0 > 0 ? S_in - j0 : 0);  // input keys in the row
  if (masks.causal) {  // keys j > i: the end of the row's input keys, without a test per key
    int visible = i + 1 - j0;
    visible = visible < 0 ? 0 : (visible > n_in ? n_in : visible);
    for (int c = visible; c < n_in; ++c) row[c] = -std::numeric_limits<T>::infinity();
    n_in = visible;
  }
  if (masks.key_padding || masks.attn_bool || masks.attn_float)
    for (int c = 0; c < n_in; ++c) {
      const int j = j0 + c;
      const bool blocked = (masks.key_padding && masks.key_padding[std::size_t(b) * S_in + j]) ||
                           (masks.attn_bool && masks.attn_bool[mask_row + j]);
      if (blocked)
        row[c] = -std::numeric_limits<T>::infinity();
      else if (masks.attn_float)
        row[c] += masks.attn_float[mask_row + j];
    }
}

template <class T>
inline bool any_mask(const MhaMasks<T>& m) {
  return m.key_padding || m.attn_bool || m.attn_float || m.causal;
}

}  // namespace detail

}  // namespace attnlab::kernels
