// The row softmax of attention scores, safe by contract.
//
// Blocked positions arrive as -inf (PyTorch's convention: a boolean mask
// becomes a float mask of -inf before the softmax). A row in which every
// entry is -inf gets all-zero weights instead of PyTorch's 0/0 = NaN.
#pragma once

#include <cstddef>

namespace attnlab::kernels {

/// In place: row[j] <- exp(row[j] - m) / sum_k exp(row[k] - m), m = max_k row[k],
/// for one row of n scores (n >= 1). Entries equal to -inf get weight 0.
/// When every entry is -inf the row becomes all zeros (PyTorch 1.13's softmax
/// returns NaN there; see multihead_attention.hpp). Returns false in that case,
/// true otherwise. NaN scores are not handled (they propagate, as in PyTorch).
/// Source: the softmax of Vaswani et al. 2017 §3.2.1, eq. (1); subtracting the
/// row maximum leaves it unchanged and keeps exp() from overflowing.
template <class T>
bool masked_softmax_row(T* row, std::size_t n);

/// In place: the gradient of a softmax row. Given its output p (n) and the
/// gradient g (n) with respect to p, writes g[j] <- p[j] * (g[j] - sum_k p[k] g[k]),
/// the gradient with respect to the scores. Entries with p[j] = 0 (blocked,
/// or the whole of an all-blocked row) get exactly 0, so no NaN can enter.
template <class T>
void softmax_row_backward(T* g, const T* p, std::size_t n);

}  // namespace attnlab::kernels
