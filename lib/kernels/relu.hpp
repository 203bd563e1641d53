// ReLU activation, torch.nn.ReLU / F.relu: out = max(0, x).
#pragma once

#include <cstddef>

namespace attnlab::kernels {

/// Forward pass, elementwise over n values: out = x > 0 ? x : 0. out may be inp.
/// Source: torch.nn.ReLU documentation; the FFN of Vaswani et al. 2017, eq. (2).
template <class T>
void relu_forward(T* out, const T* inp, std::size_t n);

/// Backward pass: ADDS dout where the forward's input was > 0 (PyTorch's
/// threshold_backward: the gradient at exactly 0 is 0), given inp or the
/// forward's out (both are > 0 at the same places). dinp must not overlap dout.
template <class T>
void relu_backward(T* dinp, const T* dout, const T* inp, std::size_t n);

}  // namespace attnlab::kernels
