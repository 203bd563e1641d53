// Gradient clipping by one global norm.
#pragma once

#include <cstddef>

namespace attnlab::optim {

/// torch.nn.utils.clip_grad_norm_(parameters, max_norm) with the L2 norm,
/// over all parameters at once (grads is the flat gradient buffer, n
/// values). Scales every gradient by min(1, max_norm / (total_norm + 1e-6))
/// (PyTorch 1.13 multiplies even when the factor is 1). Returns the total
/// norm before clipping. The sum of squares is accumulated in double.
double clip_grad_norm(float* grads, std::size_t n, double max_norm);

}  // namespace attnlab::optim
