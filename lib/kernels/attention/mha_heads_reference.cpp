// The per-head loops of multi-head attention one query row and one key at a
// time, as the equations read (nn/mha_heads.hpp). The tiled version
// (nn/mha_heads_tiled.cpp) is what runs; this one is what it is tested against.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/attention_softmax.hpp"
#include "kernels/attention/mha_heads.hpp"

namespace attnlab::kernels {

template <class T>
void mha_heads_forward_reference(T* cache, const MhaCacheLayout& L, T* weights, MhaWeights which,
                                 const MhaMasks<T>& masks, const MhaDropout<T>& dropout, const MhaDims& d) {
  const int B = d.B, Tq = d.T, S = d.keys(), H = d.H, D = d.D;
  const T* q = cache + L.q;  // (B·T, C), row stride ld_q
  const T* k = cache + L.k;  // (B·S', C), row stride ld_kv
  const T* v = cache + L.v;  // (B·S', C), row stride ld_kv
  T* att = cache + L.att;    // (B, H, T, S') softmax weights before dropout
  T* y = cache + L.y;        // (B·T, C) heads concatenated
  if (weights == nullptr) which = MhaWeights::none;
  const T sqrt_d = std::sqrt(T(D));
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const T* kh = k + b * L.kv_b + h * D;  // k_j[e] = kh[j * kv_j + e]
      const T* vh = v + b * L.kv_b + h * D;  // v_j[e] = vh[j * kv_j + e]
      for (int i = 0; i < Tq; ++i) {
        const std::size_t row_index = (std::size_t(b * H + h) * Tq + i) * S;
        T* p = att + row_index;                           // (S')
        const T* qi = q + b * L.q_b + i * L.q_i + h * D;  // (D)

        // pass 1: scores q·k / sqrt(D), then the masks (-inf where blocked, + the float mask)
        for (int j = 0; j < S; ++j) {
          const T* kj = kh + j * L.kv_j;
          T s = T(0);
          for (int e = 0; e < D; ++e) s += qi[e] * kj[e];
          p[j] = s / sqrt_d;
        }
        detail::mask_scores_row(p, i, b, h, 0, S, masks, d);

        // pass 2: softmax (an all-blocked row becomes zeros)
        masked_softmax_row(p, std::size_t(S));

        // pass 3: P' = P after dropout; the returned weights are P' (as PyTorch 1.13 returns them)
        const std::uint8_t* keep = dropout.keep ? dropout.keep + row_index : nullptr;
        auto p_after = [&](int j) { return keep ? (keep[j] ? p[j] * dropout.scale : T(0)) : p[j]; };
        if (which == MhaWeights::per_head)
          for (int j = 0; j < S; ++j) weights[row_index + j] = p_after(j);
        else if (which == MhaWeights::averaged)
          for (int j = 0; j < S; ++j) weights[(std::size_t(b) * Tq + i) * S + j] += p_after(j);

        // pass 4: y_i = sum_j P'_ij v_j
        T* yi = y + b * L.y_b + i * L.y_i + h * D;
        for (int e = 0; e < D; ++e) {
          T acc = T(0);
          for (int j = 0; j < S; ++j) acc += p_after(j) * vh[j * L.kv_j + e];
          yi[e] = acc;
        }
      }
    }
}

template <class T>
void mha_heads_backward_reference(T* grads, const T* dy, T* tile, const T* cache, const MhaCacheLayout& L,
                                  const MhaDropout<T>& dropout, const MhaDims& d) {
  const int B = d.B, Tq = d.T, S = d.keys(), H = d.H, D = d.D;
  const T* q = cache + L.q;
  const T* k = cache + L.k;
  const T* v = cache + L.v;
  const T* att = cache + L.att;
  T* dq = grads + L.q;
  T* dk = grads + L.k;
  T* dv = grads + L.v;
  T* dp = tile;  // one row (S')
  const T sqrt_d = std::sqrt(T(D));
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const T* kh = k + b * L.kv_b + h * D;  // k_j[e] = kh[j * kv_j + e]
      const T* vh = v + b * L.kv_b + h * D;
      T* dkh = dk + b * L.kv_b + h * D;
      T* dvh = dv + b * L.kv_b + h * D;
      for (int i = 0; i < Tq; ++i) {
        const std::size_t row_index = (std::size_t(b * H + h) * Tq + i) * S;
        const T* p = att + row_index;
        const std::uint8_t* keep = dropout.keep ? dropout.keep + row_index : nullptr;
        const T* dyi = dy + b * L.y_b + i * L.y_i + h * D;
        const T* qi = q + b * L.q_b + i * L.q_i + h * D;
        T* dqi = dq + b * L.q_b + i * L.q_i + h * D;

        // pass 1: dv_j += P'_ij dy_i;  dP'_ij = dy_i · v_j;  dP = dP' * keep * scale
        for (int j = 0; j < S; ++j) {
          const T* vj = vh + j * L.kv_j;
          T* dvj = dvh + j * L.kv_j;
          const T factor = keep ? (keep[j] ? dropout.scale : T(0)) : T(1);
          const T pj = p[j] * factor;
          T gs = T(0);
          for (int e = 0; e < D; ++e) gs += dyi[e] * vj[e];
          dp[j] = gs * factor;
          for (int e = 0; e < D; ++e) dvj[e] += pj * dyi[e];
        }

        // pass 2: through the softmax: dscore_ij = P_ij (dP_ij - sum_k P_ik dP_ik)
        softmax_row_backward(dp, p, std::size_t(S));

        // pass 3: score = q_i · k_j / sqrt(D): dq_i += sum_j dscore_ij k_j / sqrt(D), dk_j += dscore_ij q_i / sqrt(D)
        for (int j = 0; j < S; ++j) dp[j] /= sqrt_d;
        for (int e = 0; e < D; ++e) {
          T acc = T(0);
          for (int j = 0; j < S; ++j) acc += dp[j] * kh[j * L.kv_j + e];
          dqi[e] += acc;
        }
        for (int j = 0; j < S; ++j) {
          T* dkj = dkh + j * L.kv_j;
          for (int e = 0; e < D; ++e) dkj[e] += dp[j] * qi[e];
        }
      }
    }
}

#define ATTNLAB_MHA_HEADS_REFERENCE(T)                                                                           \
  template void mha_heads_forward_reference<T>(T*, const MhaCacheLayout&, T*, MhaWeights, const MhaMasks<T>&,     \
                                               const MhaDropout<T>&, const MhaDims&);                            \
  template void mha_heads_backward_reference<T>(T*, const T*, T*, const T*, const MhaCacheLayout&,                \
                                                const MhaDropout<T>&, const MhaDims&);
ATTNLAB_MHA_HEADS_REFERENCE(float)
ATTNLAB_MHA_HEADS_REFERENCE(double)
#undef ATTNLAB_MHA_HEADS_REFERENCE

}  // namespace attnlab::kernels
