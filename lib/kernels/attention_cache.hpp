// Streaming causal self-attention: one new step against a cache of the past
// keys and values (the "causal cache" of the attention page, data/sources/attention_page.txt §3).
//
// Step t (0-based) of causal self-attention over x_0 .. x_{T-1}:
//   [q_t | k_t | v_t] = x_t · [Wq; Wk; Wv]^T + [bq; bk; bv]       one (B, C)·(C, 3C) product
//   keys[t] = k_t, values[t] = v_t                                   appended to the cache
//   head h:  s_j = q_t·k_j / sqrt(D) for j = 0 .. t;  P = softmax(s);  y_t = sum_j P_j v_j
//   out_t = y_t · Wo^T + bo
// This is row t of the causal forward pass (mha_forward with MhaMasks::causal):
// there, key j > t is masked to -inf before the softmax; here it is simply not
// in the cache yet, so no mask is needed (Vaswani et al. 2017, §3.2.3).
// Work per step: B·(4C² + 2(t+1)C) multiply-adds — O(t·C) beyond the fixed
// projections, where re-running the forward over the prefix would cost
// O(t·C² + t²·C).
//
// Letters: B batch, C = d_model, H heads, D = C / H, L the cache's capacity
// (the longest stream it holds).
#pragma once

#include <cstddef>

#include "kernels/multihead_attention.hpp"

namespace attnlab::kernels {

/// The shapes of a cache: B streams of up to L steps, width C, H heads.
struct KvCacheDims {
  int B = 1;
  int C = 0;
  int H = 1;
  int L = 0;  // capacity in steps
};

/// Checks the dims (positive, H divides C); throws std::invalid_argument naming them.
void check_kv_cache_dims(const KvCacheDims& d);

/// Elements of keys and of values: B·L·C each. Row (b, j) starts at (b·L + j)·C.
std::size_t kv_cache_size(const KvCacheDims& d);

/// Scratch of one step: [q | k | v] (B, 3C), y (B, C), one row of scores (L).
std::size_t attention_step_scratch_size(const KvCacheDims& d);

/// One step of causal self-attention.
///   out      (B, C)   the step's output (row t of the causal forward)
///   scratch  attention_step_scratch_size(d) elements
///   keys, values (B, L, C): rows 0 .. t-1 hold the past; row t is written here
///   t        steps already in the cache (0 for the first step)
///   x        (B, C)   this step's input
///   p        the layer's parameters (MhaParams; biases may be nullptr; packed
///            weights take one product, separate ones three; bias_k/bias_v unused)
/// Throws std::length_error when t >= L (the message names both), and
/// std::invalid_argument for bad dims.
template <class T>
void attention_step(T* out, T* scratch, T* keys, T* values, int t, const T* x, const MhaParams<T>& p,
                    const KvCacheDims& d);

}  // namespace attnlab::kernels
