#include "optim/clip_grad_norm.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab::optim {

double clip_grad_norm(float* grads, std::size_t n, double max_norm) {
  double sum_sq = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum_sq += static_cast<double>(grads[i]) * grads[i];
  // PyTorch holds the norm as a float32 tensor and adds 1e-6 in float32.
  const float total = static_cast<float>(std::sqrt(sum_sq));
  const float coef = std::min(1.0f, static_cast<float>(max_norm) / (total + 1e-6f));
  for (std::size_t i = 0; i < n; ++i) grads[i] *= coef;
  return total;
}

namespace detail {

// Whether clip_grad_norm's factor is certainly 1 for these gradients.
//
// Each square of a float is exact in double (24 + 24 bits < 53), so both
// sums add the same exact terms, only in another order. For n non-negative
// terms any order is within gamma = n u (1 - n u)^-1 of the true sum
// (u = 2^-53; Higham, "Accuracy and Stability of Numerical Algorithms",
// 2nd ed., eq. 4.4), so clip_grad_norm's sum is at most
// fast (1 + gamma) / (1 - gamma) <= fast (1 + 4 n u) for n u < 0.01.
// Its factor is min(1, m / fl(total + 1e-6f)) with m = fl(max_norm) and
// total = fl(sqrt(sum)) <= sqrt(sum) (1 + 2^-23): when
// total + 1.1e-6 <= m, the float sum is at most m (rounding is monotonic
// and m is a float), so the quotient is at least 1 and the factor exactly 1.
bool surely_unclipped(const float* grads, std::size_t n, double max_norm) {
  const double u = 0x1p-53;
  const double m = static_cast<float>(max_norm);
  if (!(m > 0) || static_cast<double>(n) * u >= 0.01) return false;
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += static_cast<double>(grads[i + j]) * grads[i + j];
  for (int j = 0; i < n; ++i, ++j) acc[j] += static_cast<double>(grads[i]) * grads[i];
  const double fast = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  const double bound = fast * (1.0 + 4.0 * static_cast<double>(n) * u);
  // NaN or infinity anywhere makes this false: clip_grad_norm decides then.
  return std::sqrt(bound) * (1.0 + 0x1p-23) + 1.1e-6 <= m;
}

}  // namespace detail

void clip_grads(float* grads, std::size_t n, double max_norm) {
  if (detail::surely_unclipped(grads, n, max_norm)) return;  // x * 1.0f == x for every float but a NaN (not here)
  clip_grad_norm(grads, n, max_norm);
}

}  // namespace attnlab::optim
