// Luong's multiplicative attention for one query per row (Luong, Pham &
// Manning 2015, arXiv:1508.04025, §3.1, eq. (8)): score(q, k_j) = q · k_j
// ("dot"; with q = W_a h_t it is their "general" score), weights =
// softmax_j over the unpadded keys, context = Σ_j w_j v_j. No 1/sqrt(d)
// scaling, unlike scaled dot-product attention: Luong's scores are unscaled.
// A row whose keys are all padding gets zero weights and a zero context.
//
// Letters: B rows (sentences), S keys (source positions), D query/key width,
// Dv value width.
#pragma once

#include <cstdint>

namespace attnlab::kernels {

/// context (B, Dv), weights (B, S) written; query (B, D), keys (B, S, D),
/// values (B, S, Dv); key_padding (B, S) nonzero = blocked (PyTorch's
/// key_padding_mask True), or nullptr.
template <class T>
void dot_attention_forward(T* context, T* weights, const T* query, const T* keys, const T* values,
                           const std::uint8_t* key_padding, int B, int S, int D, int Dv);

/// ADDS into d_query (B, D), d_keys (B, S, D), d_values (B, S, Dv) (any may be
/// null) given d_context (B, Dv) and the forward's weights; scratch: S elements.
template <class T>
void dot_attention_backward(T* d_query, T* d_keys, T* d_values, T* scratch, const T* d_context, const T* weights,
                            const T* query, const T* keys, const T* values, int B, int S, int D, int Dv);

}  // namespace attnlab::kernels
