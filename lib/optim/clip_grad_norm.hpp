// Gradient clipping by one global norm.
#pragma once

#include <cstddef>

namespace attnlab::optim {

/// torch.nn.utils.clip_grad_norm_(parameters, max_norm) with the L2 norm,
/// over all parameters at once (grads is the flat gradient buffer, n
/// values). Scales every gradient by min(1, max_norm / (total_norm + 1e-6))
/// (PyTorch 1.13 multiplies even when the factor is 1). Returns the total
/// norm before clipping. The sum of squares is accumulated in double, one
/// value after another.
double clip_grad_norm(float* grads, std::size_t n, double max_norm);

/// What clip_grad_norm does to the gradients, to the byte, for a caller that
/// does not need the norm (the training loop). Most steps do not clip (the
/// course's tables: 1 to 15 % of steps do), and there the factor is exactly
/// 1, which changes no float: when a sum of squares in 8 independent chains
/// shows, with its rounding bound, that clip_grad_norm's factor would be 1,
/// nothing is touched; otherwise it runs clip_grad_norm. The one-chain sum
/// waits 4 cycles an element for the previous add (1 to 2 % of a positions
/// row); the 8 chains do not.
void clip_grads(float* grads, std::size_t n, double max_norm);

namespace detail {
/// clip_grads' test: true only when clip_grad_norm's factor is certainly
/// exactly 1 (false for NaN or infinite gradients, max_norm <= 0, n >= 2^46).
bool surely_unclipped(const float* grads, std::size_t n, double max_norm);
}  // namespace detail

}  // namespace attnlab::optim
