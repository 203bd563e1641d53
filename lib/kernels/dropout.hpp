// Dropout with a given keep mask, as F.dropout(x, p, training=True).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnlab::kernels {

/// Forward pass over n values (any shape) given the keep mask (n) drawn by
/// random::Generator::dropout_mask and scale = random::dropout_scale(p)
/// = fl(1 / fl(1 - p)):
///   out = inp * (keep ? scale : 0),
/// so a kept value is fl(x * scale) and a dropped one is x * 0 (-0.0 for a
/// negative x, NaN for a NaN x), exactly as PyTorch multiplies by its noise
/// tensor. out may be inp (in place). n = 0 does nothing; nothing is thrown.
/// Source: torch.nn.Dropout documentation; docs/torch_rng.md §6 for the rounding;
/// Srivastava et al. 2014 (inverted dropout: scale by 1/(1-p) at training).
template <class T>
void dropout_forward(T* out, const T* inp, const std::uint8_t* keep, T scale, std::size_t n);

/// Backward pass: ADDS dout * (keep ? scale : 0) into dinp (n), the same
/// noise PyTorch multiplies the gradient by. dinp must not overlap dout.
template <class T>
void dropout_backward(T* dinp, const T* dout, const std::uint8_t* keep, T scale, std::size_t n);

}  // namespace attnlab::kernels
