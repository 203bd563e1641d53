// Softmax cross-entropy on logits with integer labels, mean over the batch,
// as torch.nn.CrossEntropyLoss() with its defaults.
#pragma once

#include <cstdint>

namespace attnlab::kernels {

/// Forward pass over B rows of K class logits:
///   loss = (1/B) sum_b [ log sum_k exp(logits[b,k]) - logits[b, labels[b]] ]
/// computed stably per row with m = max_k logits[b,k]:
///   log sum_k exp(l_k) = m + log sum_k exp(l_k - m)   (exp(89) overflows float32;
/// after the shift every exponent is <= 0, so logits of +-1e4 are fine).
/// Returns the loss (nats, a mean over the batch; the batch sum is taken in
/// double). probs (B, K), if not nullptr, receives softmax(logits) for the
/// backward pass; logits (B, K); labels (B) int32 in [0, K).
/// Throws std::invalid_argument unless B, K >= 1, std::out_of_range (naming
/// the row and label) when a label is outside [0, K) — checked before
/// anything is written. No ignore_index, weights or label smoothing.
/// Source: torch.nn.CrossEntropyLoss documentation (reduction='mean').
template <class T>
T cross_entropy_forward(T* probs, const T* logits, const std::int32_t* labels, int B, int K);

/// Backward pass: ADDS (probs[b,k] - [k == labels[b]]) * dloss / B into
/// dlogits (B, K), dloss being dLoss/dloss (1 when the loss is the objective).
/// probs (B, K) from cross_entropy_forward, labels (B).
/// Throws as cross_entropy_forward.
/// Source: the derivative of log-softmax followed by the mean NLL.
template <class T>
void cross_entropy_backward(T* dlogits, T dloss, const T* probs, const std::int32_t* labels, int B,
                            int K);

}  // namespace attnlab::kernels
