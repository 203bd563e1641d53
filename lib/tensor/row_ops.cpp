#include "tensor/row_ops.hpp"

#include <cmath>
#include <limits>

namespace attnlab::tensor {

void softmax_inplace(float* x, std::size_t n) {
  if (n == 0) return;
  const float m = max_value(x, n);
  float sum = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - m);
    sum += x[i];
  }
  for (std::size_t i = 0; i < n; ++i) x[i] /= sum;
}

double std_unbiased(const float* x, std::size_t n) {
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  double mean = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean += x[i];
  mean /= static_cast<double>(n);
  double ss = 0.0;
  for (std::size_t i = 0; i < n; ++i) ss += (x[i] - mean) * (x[i] - mean);
  return std::sqrt(ss / static_cast<double>(n - 1));
}

float max_value(const float* x, std::size_t n) {
  float m = x[0];
  for (std::size_t i = 1; i < n; ++i)
    if (x[i] > m) m = x[i];
  return m;
}

int argmax(const float* x, std::size_t n) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return static_cast<int>(best);
}

}  // namespace attnlab::tensor
