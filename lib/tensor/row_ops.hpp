// Small reductions over one row, written as loops (xtensor reductions over
// short axes are 10-20x slower, docs/xtensor.md).
#pragma once

#include <cstddef>

namespace attnlab::tensor {

/// In-place softmax of x[0..n): subtract the maximum first, because exp(89)
/// already overflows float32. n = 0 does nothing.
void softmax_inplace(float* x, std::size_t n);

/// Sample standard deviation with Bessel's correction (torch.std's default,
/// unbiased=True), accumulated in double. Needs n >= 2; returns NaN otherwise,
/// as torch does.
double std_unbiased(const float* x, std::size_t n);

/// Largest element of x[0..n), n >= 1.
float max_value(const float* x, std::size_t n);

/// Index of the first largest element of x[0..n), n >= 1: ties go to the
/// lowest index, as torch.argmax returns the first maximum (greedy decoding).
int argmax(const float* x, std::size_t n);

}  // namespace attnlab::tensor
