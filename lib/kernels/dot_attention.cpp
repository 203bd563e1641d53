#include "kernels/dot_attention.hpp"

#include <cstddef>
#include <limits>

#include "kernels/attention_softmax.hpp"

namespace attnlab::kernels {

template <class T>
void dot_attention_forward(T* context, T* weights, const T* query, const T* keys, const T* values,
                           const std::uint8_t* key_padding, int B, int S, int D, int Dv) {
  for (int b = 0; b < B; ++b) {
    const T* q = query + static_cast<std::size_t>(b) * D;
    T* w = weights + static_cast<std::size_t>(b) * S;
    // pass 1: scores q · k_j, -inf where the key is padding
    for (int j = 0; j < S; ++j) {
      if (key_padding && key_padding[static_cast<std::size_t>(b) * S + j]) {
        w[j] = -std::numeric_limits<T>::infinity();
        continue;
      }
      const T* k = keys + (static_cast<std::size_t>(b) * S + j) * D;
      T s = 0;
      for (int d = 0; d < D; ++d) s += q[d] * k[d];
      w[j] = s;
    }
    // pass 2: softmax (zeros for a row with nothing visible)
    masked_softmax_row(w, static_cast<std::size_t>(S));
    // pass 3: context = Σ_j w_j v_j
    T* c = context + static_cast<std::size_t>(b) * Dv;
    for (int d = 0; d < Dv; ++d) c[d] = 0;
    for (int j = 0; j < S; ++j) {
      const T* v = values + (static_cast<std::size_t>(b) * S + j) * Dv;
      for (int d = 0; d < Dv; ++d) c[d] += w[j] * v[d];
    }
  }
}

template <class T>
void dot_attention_backward(T* d_query, T* d_keys, T* d_values, T* scratch, const T* d_context, const T* weights,
                            const T* query, const T* keys, const T* values, int B, int S, int D, int Dv) {
  for (int b = 0; b < B; ++b) {
    const T* w = weights + static_cast<std::size_t>(b) * S;
    const T* dc = d_context + static_cast<std::size_t>(b) * Dv;
    const T* q = query + static_cast<std::size_t>(b) * D;
    // dw_j = dc · v_j; d v_j += w_j dc
    for (int j = 0; j < S; ++j) {
      const T* v = values + (static_cast<std::size_t>(b) * S + j) * Dv;
      T s = 0;
      for (int d = 0; d < Dv; ++d) s += dc[d] * v[d];
      scratch[j] = s;
      if (d_values) {
        T* dv = d_values + (static_cast<std::size_t>(b) * S + j) * Dv;
        for (int d = 0; d < Dv; ++d) dv[d] += w[j] * dc[d];
      }
    }
    // through the softmax: scratch becomes d(scores); blocked keys get 0
    softmax_row_backward(scratch, w, static_cast<std::size_t>(S));
    // d q += Σ_j ds_j k_j; d k_j += ds_j q
    for (int j = 0; j < S; ++j) {
      const T ds = scratch[j];
      if (ds == T(0)) continue;
      const T* k = keys + (static_cast<std::size_t>(b) * S + j) * D;
      if (d_query)
        for (int d = 0; d < D; ++d) d_query[static_cast<std::size_t>(b) * D + d] += ds * k[d];
      if (d_keys) {
        T* dk = d_keys + (static_cast<std::size_t>(b) * S + j) * D;
        for (int d = 0; d < D; ++d) dk[d] += ds * q[d];
      }
    }
  }
}

template void dot_attention_forward<float>(float*, float*, const float*, const float*, const float*,
                                           const std::uint8_t*, int, int, int, int);
template void dot_attention_forward<double>(double*, double*, const double*, const double*, const double*,
                                            const std::uint8_t*, int, int, int, int);
template void dot_attention_backward<float>(float*, float*, float*, float*, const float*, const float*,
                                            const float*, const float*, const float*, int, int, int, int);
template void dot_attention_backward<double>(double*, double*, double*, double*, const double*, const double*,
                                             const double*, const double*, const double*, int, int, int, int);

}  // namespace attnlab::kernels
