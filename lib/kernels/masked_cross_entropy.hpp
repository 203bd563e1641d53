// Softmax cross-entropy that ignores one label, as
// torch.nn.CrossEntropyLoss(ignore_index=PAD) with reduction='mean': the
// padding of a batch of sentences of different lengths costs nothing and
// gets no gradient, and the mean is over the counted rows only.
#pragma once

#include <cstdint>

namespace attnlab::kernels {

/// Over N rows of K logits: loss = (1/M) Σ_{rows with label != ignore}
/// [log Σ_k exp(l_k) - l_label], M the number of such rows (the sum in
/// double, each row shifted by its max). probs (N, K) receives softmax(logits)
/// for counted rows (ignored rows are left untouched); *counted (if not null)
/// receives M. Returns 0 when M = 0, as a loss with nothing to count.
/// Throws std::invalid_argument unless N, K >= 1, std::out_of_range (naming
/// the row) when a counted label is outside [0, K).
/// Source: torch.nn.CrossEntropyLoss documentation (ignore_index, reduction='mean').
template <class T>
T masked_cross_entropy_forward(T* probs, const T* logits, const std::int32_t* labels, int N, int K,
                               std::int32_t ignore_index, int* counted = nullptr);

/// ADDS (probs - onehot(label)) · dloss / M into dlogits for every counted
/// row (ignored rows get nothing). M as the forward counted it.
template <class T>
void masked_cross_entropy_backward(T* dlogits, T dloss, const T* probs, const std::int32_t* labels, int N, int K,
                                   std::int32_t ignore_index);

}  // namespace attnlab::kernels
