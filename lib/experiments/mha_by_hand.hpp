// The nn.MultiheadAttention page's (data/sources/torch_mha_page.txt) by-hand multi-head attention ("MultiheadAttention
// Implementation", 003 in the chapter's sources), written with xtensor
// expressions: linear, split into heads, bmm, masks, softmax, average. Part 3
// of the torch_mha experiment compares it with the library's layer.
#pragma once

#include <optional>

#include <xtensor/xtensor.hpp>

namespace attnlab::experiments {

struct ByHandResult {
  xt::xtensor<float, 3> output;   // (N, B, E)
  xt::xtensor<float, 3> weights;  // (B, N, M), averaged over heads
};

/// MultiHeadAttention(Q, K, V, Wq, Wk, Wv, Wo, Bq, Bk, Bv, Bo, key_mask, attn_mask)
/// as the page writes it, for Q (N, B, E), K (M, B, Ek), V (M, B, Ev), H heads:
///   q = linear(Q, Wq, Bq) ... ; q.view(N, B·H, E/H).transpose(0, 1)
///   W = bmm(q, k^T) / sqrt(E/H) [+ attn_mask] [masked_fill(key_mask, -inf)]
///   W = softmax(W); A = bmm(W, v) back to (N, B, E); linear(A, Wo, Bo), W mean over heads
/// Wq (E, E), Wk (E, Ek), Wv (E, Ev), Wo (E, E); biases (E) or empty;
/// key_mask (B, M) True = excluded; attn_mask (N, M) added.
ByHandResult mha_by_hand(const xt::xtensor<float, 3>& Q, const xt::xtensor<float, 3>& K,
                         const xt::xtensor<float, 3>& V, const xt::xtensor<float, 2>& Wq,
                         const xt::xtensor<float, 2>& Wk, const xt::xtensor<float, 2>& Wv,
                         const xt::xtensor<float, 2>& Wo, const xt::xtensor<float, 1>& Bq,
                         const xt::xtensor<float, 1>& Bk, const xt::xtensor<float, 1>& Bv,
                         const xt::xtensor<float, 1>& Bo, int H, const xt::xtensor<bool, 2>* key_mask,
                         const xt::xtensor<float, 2>* attn_mask);

}  // namespace attnlab::experiments
