#include "kernels/scaled_dot_product_attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/attention_softmax.hpp"

namespace attnlab::kernels {

namespace {
void check_dims(int B, int L, int S, int E, int Ev) {
  if (B < 1 || L < 1 || S < 1 || E < 1 || Ev < 1)
    throw std::invalid_argument("scaled_dot_product_attention: every size must be >= 1 (got B=" + std::to_string(B) +
                                ", L=" + std::to_string(L) + ", S=" + std::to_string(S) + ", E=" +
                                std::to_string(E) + ", Ev=" + std::to_string(Ev) + ")");
}
}  // namespace

template <class T>
void sdpa_forward(T* out, T* weights, const T* q, const T* k, const T* v, const SdpaMask<T>& mask, int B, int L,
                  int S, int E, int Ev) {
  check_dims(B, L, S, E, Ev);
  const T sqrt_e = std::sqrt(T(E));
  const T neg_inf = -std::numeric_limits<T>::infinity();
  const std::size_t LS = std::size_t(L) * S;
  for (int b = 0; b < B; ++b) {
    const T* kb = k + std::size_t(b) * S * E;
    const T* vb = v + std::size_t(b) * S * Ev;
    const std::size_t mask_base = mask.per_batch ? std::size_t(b) * LS : 0;
    for (int i = 0; i < L; ++i) {
      const T* qi = q + (std::size_t(b) * L + i) * E;
      T* p = weights + (std::size_t(b) * L + i) * S;
      const std::size_t mrow = mask_base + std::size_t(i) * S;
      // pass 1: scores, -inf where blocked
      for (int j = 0; j < S; ++j) {
        if ((mask.causal && j > i) || (mask.keep && !mask.keep[mrow + j])) {
          p[j] = neg_inf;
          continue;
        }
        const T* kj = kb + std::size_t(j) * E;
        T s = T(0);
        for (int e = 0; e < E; ++e) s += qi[e] * kj[e];
        s /= sqrt_e;
        if (mask.add) s += mask.add[mrow + j];
        p[j] = s;
      }
      // pass 2: softmax (an all-blocked row becomes zeros)
      masked_softmax_row(p, std::size_t(S));
      // pass 3: out_i = sum_j P_ij v_j
      T* oi = out + (std::size_t(b) * L + i) * Ev;
      for (int e = 0; e < Ev; ++e) oi[e] = T(0);
      for (int j = 0; j < S; ++j) {
        if (p[j] == T(0)) continue;
        const T* vj = vb + std::size_t(j) * Ev;
        for (int e = 0; e < Ev; ++e) oi[e] += p[j] * vj[e];
      }
    }
  }
}

template <class T>
void sdpa_backward(T* dq, T* dk, T* dv, T* scratch, const T* dout, const T* dweights, const T* weights, const T* q,
                   const T* k, const T* v, int B, int L, int S, int E, int Ev) {
  check_dims(B, L, S, E, Ev);
  const T sqrt_e = std::sqrt(T(E));
  T* dp = scratch;  // (S)
  for (int b = 0; b < B; ++b) {
    const T* kb = k + std::size_t(b) * S * E;
    const T* vb = v + std::size_t(b) * S * Ev;
    for (int i = 0; i < L; ++i) {
      const std::size_t row = std::size_t(b) * L + i;
      const T* p = weights + row * S;
      const T* doi = dout + row * Ev;
      // pass 1: dv_j += P_ij dout_i; dP_ij = dout_i · v_j (+ the weights' own gradient)
      for (int j = 0; j < S; ++j) {
        const T* vj = vb + std::size_t(j) * Ev;
        T g = dweights ? dweights[row * S + j] : T(0);
        for (int e = 0; e < Ev; ++e) g += doi[e] * vj[e];
        dp[j] = g;
        if (dv && p[j] != T(0)) {
          T* dvj = dv + (std::size_t(b) * S + j) * Ev;
          for (int e = 0; e < Ev; ++e) dvj[e] += p[j] * doi[e];
        }
      }
      // pass 2: through the softmax, dscore_ij = P_ij (dP_ij - sum_k P_ik dP_ik)
      softmax_row_backward(dp, p, std::size_t(S));
      // pass 3: score = q_i · k_j / sqrt(E)
      const T* qi = q + row * E;
      for (int j = 0; j < S; ++j) {
        if (dp[j] == T(0)) continue;  // blocked: nothing flows
        const T ds = dp[j] / sqrt_e;
        const T* kj = kb + std::size_t(j) * E;
        if (dq)
          for (int e = 0; e < E; ++e) dq[row * E + e] += ds * kj[e];
        if (dk) {
          T* dkj = dk + (std::size_t(b) * S + j) * E;
          for (int e = 0; e < E; ++e) dkj[e] += ds * qi[e];
        }
      }
    }
  }
}

#define ATTNLAB_SDPA_INSTANTIATE(T)                                                                           \
  template void sdpa_forward<T>(T*, T*, const T*, const T*, const T*, const SdpaMask<T>&, int, int, int, int, \
                                int);                                                                         \
  template void sdpa_backward<T>(T*, T*, T*, T*, const T*, const T*, const T*, const T*, const T*, const T*, int, \
                                 int, int, int, int);
ATTNLAB_SDPA_INSTANTIATE(float)
ATTNLAB_SDPA_INSTANTIATE(double)
#undef ATTNLAB_SDPA_INSTANTIATE

}  // namespace attnlab::kernels
