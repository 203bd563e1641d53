#include "kernels/masked_cross_entropy.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace attnlab::kernels {

namespace {

int count_rows(const char* where, const std::int32_t* labels, int N, int K, std::int32_t ignore) {
  if (N < 1 || K < 1)
    throw std::invalid_argument(std::string(where) + ": needs N, K >= 1, got N=" + std::to_string(N) +
                                " K=" + std::to_string(K));
  int m = 0;
  for (int i = 0; i < N; ++i) {
    if (labels[i] == ignore) continue;
    if (labels[i] < 0 || labels[i] >= K)
      throw std::out_of_range(std::string(where) + ": labels[" + std::to_string(i) + "]=" +
                              std::to_string(labels[i]) + " is outside [0, " + std::to_string(K) + ")");
    ++m;
  }
  return m;
}

}  // namespace

template <class T>
T masked_cross_entropy_forward(T* probs, const T* logits, const std::int32_t* labels, int N, int K,
                               std::int32_t ignore_index, int* counted) {
  const int M = count_rows("masked_cross_entropy_forward", labels, N, K, ignore_index);
  if (counted) *counted = M;
  double total = 0.0;
  for (int i = 0; i < N; ++i) {
    if (labels[i] == ignore_index) continue;
    const T* l = logits + static_cast<std::size_t>(i) * K;
    T m = l[0];  // subtract the max: exp(89) overflows float32
    for (int k = 1; k < K; ++k) m = l[k] > m ? l[k] : m;
    T sum = 0;
    for (int k = 0; k < K; ++k) sum += std::exp(l[k] - m);
    total += static_cast<double>(std::log(sum) - (l[labels[i]] - m));
    T* p = probs + static_cast<std::size_t>(i) * K;
    for (int k = 0; k < K; ++k) p[k] = std::exp(l[k] - m) / sum;
  }
  return M == 0 ? T(0) : static_cast<T>(total / M);
}

template <class T>
void masked_cross_entropy_backward(T* dlogits, T dloss, const T* probs, const std::int32_t* labels, int N, int K,
                                   std::int32_t ignore_index) {
  const int M = count_rows("masked_cross_entropy_backward", labels, N, K, ignore_index);
  if (M == 0) return;
  const T g = dloss / static_cast<T>(M);
  for (int i = 0; i < N; ++i) {
    if (labels[i] == ignore_index) continue;
    const T* p = probs + static_cast<std::size_t>(i) * K;
    T* d = dlogits + static_cast<std::size_t>(i) * K;
    for (int k = 0; k < K; ++k) d[k] += (p[k] - (k == labels[i] ? T(1) : T(0))) * g;
  }
}

template float masked_cross_entropy_forward<float>(float*, const float*, const std::int32_t*, int, int,
                                                   std::int32_t, int*);
template double masked_cross_entropy_forward<double>(double*, const double*, const std::int32_t*, int, int,
                                                     std::int32_t, int*);
template void masked_cross_entropy_backward<float>(float*, float, const float*, const std::int32_t*, int, int,
                                                   std::int32_t);
template void masked_cross_entropy_backward<double>(double*, double, const double*, const std::int32_t*, int, int,
                                                    std::int32_t);

}  // namespace attnlab::kernels
