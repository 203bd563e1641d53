// GELU activation, exact erf form (torch.nn.GELU() with approximate='none').
#pragma once

#include <cstddef>

namespace attnlab::kernels {

/// Forward pass, elementwise over n values (any shape, e.g. (N, 4C)):
///   out = 0.5 * x * (1 + erf(x / sqrt(2)))   (x * Phi(x), Phi the normal CDF).
/// out must not overlap inp (the backward pass needs inp). No allocation:
/// every element goes through the same xsimd code (nn/lanewise.hpp), so a
/// value's result does not depend on where its buffer lies.
/// n = 0 does nothing; nothing is thrown.
/// erf as PyTorch's vectorised CPU kernels evaluate it: floats by the
/// Abramowitz-Stegun 7.1.26 polynomial (|error| <= 1.5e-7, ATen's AVX2
/// Vectorized<float>::erf), doubles by XSIMD's accurate erf (ATen: Sleef).
/// PyTorch's float exp inside it is Sleef's and ours Cephes', so float
/// results agree with PyTorch's to about 1e-7 absolute (tests/kernels/gelu_test.cpp).
/// Source: torch.nn.GELU documentation; Hendrycks & Gimpel 2016, eq. (1).
template <class T>
void gelu_forward(T* out, const T* inp, std::size_t n);

/// Backward pass: ADDS dout * GELU'(x) into dinp (n), with
///   GELU'(x) = Phi(x) + x * phi(x) = 0.5 * (1 + erf(x / sqrt(2))) + x * exp(-x^2 / 2) / sqrt(2 pi),
/// as PyTorch's GeluBackward kernel computes it. dinp must not overlap dout or inp.
/// Source: the derivative of the forward above.
template <class T>
void gelu_backward(T* dinp, const T* dout, const T* inp, std::size_t n);

/// gelu_forward that also keeps GELU'(x) (n values) for
/// gelu_backward_kept_overwrite, so the backward pass is one multiply (the
/// erf and two exps of GELU's two passes were 12 % of a one-block
/// transformer's training step). out is gelu_forward's bytes. dgelu is
/// gelu_backward's derivative, 0.5 (1 + erf(x / sqrt 2)) + x phi(x), except
/// that for floats phi's e^(-x^2 / 2) is the erf's own e^(-z^2), z = x / sqrt 2
/// (its argument rounded once more: within 2e-7 relative of gelu_backward's,
/// tests/kernels/gelu_test.cpp). out and dgelu must not overlap each other or inp.
template <class T>
void gelu_forward_keep(T* out, T* dgelu, const T* inp, std::size_t n);

/// The backward pass given the dgelu gelu_forward_keep kept for these
/// inputs, WRITING rather than adding: dinp = dout * dgelu. A caller whose
/// target is zero saves the pass that zeroes it. dinp may be dout (in
/// place), must not overlap dgelu otherwise.
template <class T>
void gelu_backward_kept_overwrite(T* dinp, const T* dout, const T* dgelu, std::size_t n);

}  // namespace attnlab::kernels
