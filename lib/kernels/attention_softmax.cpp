#include "kernels/attention_softmax.hpp"

#include <cmath>
#include <limits>

namespace attnlab::kernels {

template <class T>
bool masked_softmax_row(T* row, std::size_t n) {
  // pass 1: the row maximum (subtract it: exp(89) already overflows float32)
  T m = -std::numeric_limits<T>::infinity();
  for (std::size_t j = 0; j < n; ++j) m = row[j] > m ? row[j] : m;
  if (m == -std::numeric_limits<T>::infinity()) {
    // nothing visible: exp(-inf - -inf) would be NaN; we define the weights as 0
    for (std::size_t j = 0; j < n; ++j) row[j] = T(0);
    return false;
  }
  // pass 2: exp and sum (exp(-inf) = 0 for blocked entries)
  T sum = T(0);
  for (std::size_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - m);
    sum += row[j];
  }
  // pass 3: normalise (sum >= 1: the maximum contributes exp(0))
  const T inv = T(1) / sum;
  for (std::size_t j = 0; j < n; ++j) row[j] *= inv;
  return true;
}

template <class T>
void softmax_row_backward(T* g, const T* p, std::size_t n) {
  T dot = T(0);
  for (std::size_t j = 0; j < n; ++j) dot += p[j] * g[j];
  for (std::size_t j = 0; j < n; ++j) g[j] = p[j] == T(0) ? T(0) : p[j] * (g[j] - dot);
}

template bool masked_softmax_row<float>(float*, std::size_t);
template bool masked_softmax_row<double>(double*, std::size_t);
template void softmax_row_backward<float>(float*, const float*, std::size_t);
template void softmax_row_backward<double>(double*, const double*, std::size_t);

}  // namespace attnlab::kernels
