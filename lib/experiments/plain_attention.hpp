// The scaled dot-product attention the course writes by hand in its first
// scripts (03, 05, 08: `attention(Q, K, V)` / `attend(q, k, v)`), for one
// sequence, on float32 buffers as PyTorch computes it.
#pragma once

namespace attnlab::experiments {

/// weights (T, S) = softmax(q (T, D) · k (S, D)^T / sqrt(D)) row by row, then
/// out (T, Dv) = weights · v (S, Dv). The scores are divided by sqrt(D)
/// rounded to float32, as a float32 tensor divided by the Python float
/// d ** 0.5 is. weights may be nullptr when only the output is wanted.
/// Throws std::invalid_argument unless T, S, D, Dv >= 1.
/// Source: Vaswani et al. 2017, §3.2.1, eq. (1).
void plain_attention(float* out, float* weights, const float* q, const float* k, const float* v, int T, int S,
                     int D, int Dv);

}  // namespace attnlab::experiments
