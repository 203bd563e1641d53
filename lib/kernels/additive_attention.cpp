#include "kernels/additive_attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/attention_softmax.hpp"
#include "kernels/linear.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

void check_additive_dims(const AdditiveDims& d) {
  if (d.B < 1 || d.T < 1 || d.S < 1 || d.Dq < 1 || d.Dk < 1 || d.A < 1 || d.Dv < 1)
    throw std::invalid_argument("additive attention: every size must be >= 1 (got B=" + std::to_string(d.B) +
                                ", T=" + std::to_string(d.T) + ", S=" + std::to_string(d.S) +
                                ", query_size=" + std::to_string(d.Dq) + ", key_size=" + std::to_string(d.Dk) +
                                ", hidden_size=" + std::to_string(d.A) + ", value_size=" + std::to_string(d.Dv) +
                                ")");
}

std::size_t additive_forward_scratch_size(const AdditiveDims& d) {
  return std::size_t(d.B) * d.T * d.A;
}

std::size_t additive_backward_scratch_size(const AdditiveDims& d) {
  return 2 * std::size_t(d.B) * d.T * d.A + std::size_t(d.S) + std::size_t(d.A);
}

template <class T>
void additive_attention_forward(T* context, T* weights, T* scratch, const T* query, const T* projected_keys,
                                const T* values, const std::uint8_t* key_padding, const T* W_a, const T* v_a,
                                const AdditiveDims& d) {
  check_additive_dims(d);
  const int B = d.B, Tq = d.T, S = d.S, A = d.A, Dv = d.Dv;
  T* pq = scratch;  // (B, T, A)
  linear_forward<T>(pq, query, W_a, nullptr, B * Tq, d.Dq, A);
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int b = 0; b < B; ++b) {
    const T* pkb = projected_keys + std::size_t(b) * S * A;
    const T* vb = values + std::size_t(b) * S * Dv;
    for (int i = 0; i < Tq; ++i) {
      const std::size_t row = std::size_t(b) * Tq + i;
      const T* pqi = pq + row * A;
      T* w = weights + row * S;
      // pass 1: e_ij = v_a · tanh(pq_i + pk_j), -inf for padding
      for (int j = 0; j < S; ++j) {
        if (key_padding && key_padding[std::size_t(b) * S + j]) {
          w[j] = neg_inf;
          continue;
        }
        const T* pkj = pkb + std::size_t(j) * A;
        T e = T(0);
        for (int a = 0; a < A; ++a) e += v_a[a] * std::tanh(pqi[a] + pkj[a]);
        w[j] = e;
      }
      // pass 2: alpha_ij = softmax_j (all padding: zeros)
      masked_softmax_row(w, std::size_t(S));
      // pass 3: c_i = sum_j alpha_ij value_j
      T* ci = context + row * Dv;
      for (int e = 0; e < Dv; ++e) ci[e] = T(0);
      for (int j = 0; j < S; ++j) {
        if (w[j] == T(0)) continue;
        const T* vj = vb + std::size_t(j) * Dv;
        for (int e = 0; e < Dv; ++e) ci[e] += w[j] * vj[e];
      }
    }
  }
}

template <class T>
void additive_attention_backward(T* d_query, T* d_projected_keys, T* d_values, T* dW_a, T* dv_a, T* scratch,
                                 const T* d_context, const T* d_weights, const T* query, const T* projected_keys,
                                 const T* values, const T* weights, const T* W_a, const T* v_a,
                                 const AdditiveDims& d) {
  check_additive_dims(d);
  const int B = d.B, Tq = d.T, S = d.S, A = d.A, Dv = d.Dv;
  const std::size_t BTA = std::size_t(B) * Tq * A;
  T* pq = scratch;        // (B, T, A), recomputed
  T* dpq = pq + BTA;      // (B, T, A)
  T* de = dpq + BTA;      // (S)
  T* hidden = de + S;     // (A)
  linear_forward<T>(pq, query, W_a, nullptr, B * Tq, d.Dq, A);
  for (std::size_t n = 0; n < BTA; ++n) dpq[n] = T(0);
  for (int b = 0; b < B; ++b) {
    const T* pkb = projected_keys + std::size_t(b) * S * A;
    const T* vb = values + std::size_t(b) * S * Dv;
    for (int i = 0; i < Tq; ++i) {
      const std::size_t row = std::size_t(b) * Tq + i;
      const T* w = weights + row * S;
      const T* dci = d_context + row * Dv;
      // pass 1: d_value_j += alpha_ij dc_i; d_alpha_ij = dc_i · value_j (+ the weights' own gradient)
      for (int j = 0; j < S; ++j) {
        const T* vj = vb + std::size_t(j) * Dv;
        T g = d_weights ? d_weights[row * S + j] : T(0);
        for (int e = 0; e < Dv; ++e) g += dci[e] * vj[e];
        de[j] = g;
        if (d_values && w[j] != T(0)) {
          T* dvj = d_values + (std::size_t(b) * S + j) * Dv;
          for (int e = 0; e < Dv; ++e) dvj[e] += w[j] * dci[e];
        }
      }
      // pass 2: through the softmax, de_ij = alpha_ij (d_alpha_ij - sum_k alpha_ik d_alpha_ik)
      softmax_row_backward(de, w, std::size_t(S));
      // pass 3: e_ij = v_a · tanh(pq_i + pk_j): d v_a += de h, d pre = de v_a (1 - h^2)
      const T* pqi = pq + row * A;
      T* dpqi = dpq + row * A;
      for (int j = 0; j < S; ++j) {
        if (de[j] == T(0)) continue;  // padding (alpha = 0): nothing flows
        const T* pkj = pkb + std::size_t(j) * A;
        T* dpkj = d_projected_keys ? d_projected_keys + (std::size_t(b) * S + j) * A : nullptr;
        for (int a = 0; a < A; ++a) hidden[a] = std::tanh(pqi[a] + pkj[a]);
        for (int a = 0; a < A; ++a) {
          if (dv_a) dv_a[a] += de[j] * hidden[a];
          const T dpre = de[j] * v_a[a] * (T(1) - hidden[a] * hidden[a]);
          dpqi[a] += dpre;
          if (dpkj) dpkj[a] += dpre;
        }
      }
    }
  }
  // pq = query · W_a^T: d_query += dpq · W_a, dW_a += dpq^T · query
  linear_backward<T>(d_query, dW_a, nullptr, dpq, query, W_a, B * Tq, d.Dq, A);
}

template <class T>
void additive_project_keys(T* projected_keys, const T* keys, const T* U_a, int rows, int Dk, int A) {
  linear_forward<T>(projected_keys, keys, U_a, nullptr, rows, Dk, A);
}

template <class T>
void additive_project_keys_backward(T* d_keys, T* dU_a, const T* d_projected_keys, const T* keys, const T* U_a,
                                    int rows, int Dk, int A) {
  linear_backward<T>(d_keys, dU_a, nullptr, d_projected_keys, keys, U_a, rows, Dk, A);
}

void additive_attention_init(random::Generator& gen, float* W_a, float* U_a, float* v_a, int Dq, int Dk, int A) {
  linear_init(gen, W_a, nullptr, Dq, A);
  linear_init(gen, U_a, nullptr, Dk, A);
  linear_init(gen, v_a, nullptr, A, 1);
}

#define ATTNLAB_ADDITIVE_INSTANTIATE(T)                                                                          \
  template void additive_attention_forward<T>(T*, T*, T*, const T*, const T*, const T*, const std::uint8_t*,     \
                                              const T*, const T*, const AdditiveDims&);                          \
  template void additive_attention_backward<T>(T*, T*, T*, T*, T*, T*, const T*, const T*, const T*, const T*,   \
                                               const T*, const T*, const T*, const T*, const AdditiveDims&);     \
  template void additive_project_keys<T>(T*, const T*, const T*, int, int, int);                                 \
  template void additive_project_keys_backward<T>(T*, T*, const T*, const T*, const T*, int, int, int);
ATTNLAB_ADDITIVE_INSTANTIATE(float)
ATTNLAB_ADDITIVE_INSTANTIATE(double)
#undef ATTNLAB_ADDITIVE_INSTANTIATE

}  // namespace attnlab::kernels
