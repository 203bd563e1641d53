#include "kernels/attention_cache.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/attention_softmax.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

void check_kv_cache_dims(const KvCacheDims& d) {
  if (d.B <= 0 || d.C <= 0 || d.H <= 0 || d.L <= 0)
    throw std::invalid_argument("attention cache: batch, d_model, n_heads and max_len must be positive (got B=" +
                                std::to_string(d.B) + ", d_model=" + std::to_string(d.C) + ", n_heads=" +
                                std::to_string(d.H) + ", max_len=" + std::to_string(d.L) + ")");
  if (d.C % d.H != 0)
    throw std::invalid_argument("attention cache: d_model " + std::to_string(d.C) + " is not divisible by n_heads " +
                                std::to_string(d.H));
}

std::size_t kv_cache_size(const KvCacheDims& d) { return std::size_t(d.B) * d.L * d.C; }

std::size_t attention_step_scratch_size(const KvCacheDims& d) {
  return std::size_t(d.B) * 4 * d.C + std::size_t(d.L);
}

template <class T>
void attention_step(T* out, T* scratch, T* keys, T* values, int t, const T* x, const MhaParams<T>& p,
                    const KvCacheDims& d) {
  using tensor::gemm;
  check_kv_cache_dims(d);
  if (t < 0 || t >= d.L)
    throw std::length_error("attention cache: step " + std::to_string(t + 1) + " does not fit a cache of max_len " +
                            std::to_string(d.L) + " (" + std::to_string(t) + " steps already held)");
  const int B = d.B, C = d.C, H = d.H, D = C / H, L = d.L;
  T* qkv = scratch;                                // (B, 3C) rows [q | k | v]
  T* y = qkv + std::size_t(B) * 3 * C;             // (B, C) heads concatenated
  T* s = y + std::size_t(B) * C;                   // (t + 1) scores of one head
  const std::size_t cc = std::size_t(C) * C;
  const bool packed = p.k_proj_weight == p.q_proj_weight + cc && p.v_proj_weight == p.k_proj_weight + cc;

  // projections, as the forward pass makes them: bias first, then += x · W^T
  for (int b = 0; b < B; ++b)
    for (int c = 0; c < 3 * C; ++c) qkv[std::size_t(b) * 3 * C + c] = p.in_proj_bias ? p.in_proj_bias[c] : T(0);
  const T beta = p.in_proj_bias ? T(1) : T(0);
  if (packed) {
    gemm<T>(false, true, B, 3 * C, C, T(1), x, C, p.q_proj_weight, C, beta, qkv, 3 * C);
  } else {
    gemm<T>(false, true, B, C, C, T(1), x, C, p.q_proj_weight, C, beta, qkv, 3 * C);
    gemm<T>(false, true, B, C, C, T(1), x, C, p.k_proj_weight, C, beta, qkv + C, 3 * C);
    gemm<T>(false, true, B, C, C, T(1), x, C, p.v_proj_weight, C, beta, qkv + 2 * C, 3 * C);
  }

  // append k_t, v_t at row t of each stream
  for (int b = 0; b < B; ++b) {
    const T* row = qkv + std::size_t(b) * 3 * C;
    T* kt = keys + (std::size_t(b) * L + t) * C;
    T* vt = values + (std::size_t(b) * L + t) * C;
    for (int c = 0; c < C; ++c) {
      kt[c] = row[C + c];
      vt[c] = row[2 * C + c];
    }
  }

  const T sqrt_d = std::sqrt(T(D));
  for (int b = 0; b < B; ++b) {
    const T* kb = keys + std::size_t(b) * L * C;
    const T* vb = values + std::size_t(b) * L * C;
    for (int h = 0; h < H; ++h) {
      const T* q = qkv + std::size_t(b) * 3 * C + h * D;
      // pass 1: scores of the t + 1 keys held, in the forward's order (sum over e, then / sqrt(D))
      for (int j = 0; j <= t; ++j) {
        const T* kj = kb + std::size_t(j) * C + h * D;
        T acc = T(0);
        for (int e = 0; e < D; ++e) acc += q[e] * kj[e];
        s[j] = acc / sqrt_d;
      }
      // pass 2: softmax over what is there; nothing is masked, the future is absent
      masked_softmax_row(s, std::size_t(t) + 1);
      // pass 3: y = sum_j P_j v_j, j ascending as in the forward pass
      T* yh = y + std::size_t(b) * C + h * D;
      for (int e = 0; e < D; ++e) yh[e] = T(0);
      for (int j = 0; j <= t; ++j) {
        const T* vj = vb + std::size_t(j) * C + h * D;
        for (int e = 0; e < D; ++e) yh[e] += s[j] * vj[e];
      }
    }
  }

  // out-projection: out = y · Wo^T + bo
  for (int b = 0; b < B; ++b)
    for (int c = 0; c < C; ++c) out[std::size_t(b) * C + c] = p.out_proj_bias ? p.out_proj_bias[c] : T(0);
  gemm<T>(false, true, B, C, C, T(1), y, C, p.out_proj_weight, C, p.out_proj_bias ? T(1) : T(0), out, C);
}

template void attention_step<float>(float*, float*, float*, float*, int, const float*, const MhaParams<float>&,
                                    const KvCacheDims&);
template void attention_step<double>(double*, double*, double*, double*, int, const double*,
                                     const MhaParams<double>&, const KvCacheDims&);

}  // namespace attnlab::kernels
