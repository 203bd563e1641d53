#include "kernels/cross_entropy.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace attnlab::kernels {

namespace {

void check_inputs(const char* where, const std::int32_t* labels, int B, int K) {
  if (B < 1 || K < 1)
    throw std::invalid_argument(std::string(where) + ": need B, K >= 1, got B=" +
                                std::to_string(B) + " K=" + std::to_string(K));
  for (int b = 0; b < B; ++b)
    if (labels[b] < 0 || labels[b] >= K)
      throw std::out_of_range(std::string(where) + ": label " + std::to_string(labels[b]) +
                              " in row " + std::to_string(b) + " is outside [0, " +
                              std::to_string(K) + ")");
}

}  // namespace

template <class T>
T cross_entropy_forward(T* probs, const T* logits, const std::int32_t* labels, int B, int K) {
  check_inputs("cross_entropy_forward", labels, B, K);
  double total = 0.0;  // batch sum of row losses
  for (int b = 0; b < B; ++b) {
    const T* l = logits + static_cast<std::size_t>(b) * K;  // (K)
    // pass 1: row max
    T m = l[0];
    for (int k = 1; k < K; ++k)
      if (l[k] > m) m = l[k];
    // pass 2: sum of exp(l - m), each term in (0, 1]
    T sum = T(0);
    for (int k = 0; k < K; ++k) sum += std::exp(l[k] - m);
    // row loss = log sum exp(l) - l[label] = log(sum) - (l[label] - m)
    const T log_sum = std::log(sum);
    total += static_cast<double>(log_sum - (l[labels[b]] - m));
    // pass 3: probabilities for the backward pass
    if (probs) {
      T* p = probs + static_cast<std::size_t>(b) * K;
      for (int k = 0; k < K; ++k) p[k] = std::exp(l[k] - m) / sum;
    }
  }
  return static_cast<T>(total / B);
}

template <class T>
void cross_entropy_backward(T* dlogits, T dloss, const T* probs, const std::int32_t* labels, int B,
                            int K) {
  check_inputs("cross_entropy_backward", labels, B, K);
  const T g = dloss / static_cast<T>(B);  // the mean reduction's 1/B
  for (int b = 0; b < B; ++b) {
    const T* p = probs + static_cast<std::size_t>(b) * K;  // (K)
    T* d = dlogits + static_cast<std::size_t>(b) * K;      // (K)
    for (int k = 0; k < K; ++k) d[k] += (p[k] - (k == labels[b] ? T(1) : T(0))) * g;
  }
}

template float cross_entropy_forward<float>(float*, const float*, const std::int32_t*, int, int);
template double cross_entropy_forward<double>(double*, const double*, const std::int32_t*, int,
                                              int);
template void cross_entropy_backward<float>(float*, float, const float*, const std::int32_t*, int,
                                            int);
template void cross_entropy_backward<double>(double*, double, const double*, const std::int32_t*,
                                             int, int);

}  // namespace attnlab::kernels
