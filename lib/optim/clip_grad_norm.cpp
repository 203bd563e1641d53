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

}  // namespace attnlab::optim
