// Layer normalisation over the last dimension, as torch.nn.LayerNorm(C).
#pragma once

namespace attnlab::kernels {

/// PyTorch's default eps for nn.LayerNorm, added to the variance.
inline constexpr double kLayerNormEps = 1e-5;

/// Forward pass over N rows of C channels (N = B*T):
///   mean[n] = (1/C) sum_c x[n,c]
///   rstd[n] = 1 / sqrt((1/C) sum_c (x[n,c] - mean[n])^2 + eps)   (biased variance)
///   out[n,c] = (x[n,c] - mean[n]) * rstd[n] * weight[c] + bias[c]
/// out (N, C), mean (N), rstd (N) cached for the backward pass, inp (N, C),
/// weight (C), bias (C). eps is rounded to T (float32 for float, as PyTorch's
/// CPU kernel does). out must not overlap inp. Row sums are plain loops in T.
/// Throws std::invalid_argument unless N, C >= 1.
/// Source: torch.nn.LayerNorm documentation; Ba, Kiros & Hinton 2016, eq. (4).
template <class T>
void layer_norm_forward(T* out, T* mean, T* rstd, const T* inp, const T* weight, const T* bias,
                        int N, int C, double eps = kLayerNormEps);

/// Backward pass of layer_norm_forward, given dout (N, C), the cached mean
/// and rstd (N each), inp (N, C) and weight (C). ADDS into dinp (N, C),
/// dweight (C) and dbias (C); any of them may be nullptr to skip it. With
/// xhat = (x - mean) * rstd and g = dout * weight, per row:
///   dinp    += rstd * (g - mean_c(g) - xhat * mean_c(g * xhat))
///   dweight += dout * xhat,   dbias += dout.
/// With write_dinp, dinp is written (= instead of +=; the same bytes as
/// adding into zeros), so a caller need not fill it first.
/// Throws std::invalid_argument unless N, C >= 1.
/// Source: the derivative of the forward above (as in karpathy/llm.c
/// layernorm_backward).
template <class T>
void layer_norm_backward(T* dinp, T* dweight, T* dbias, const T* dout, const T* mean,
                         const T* rstd, const T* inp, const T* weight, int N, int C, bool write_dinp = false);

/// nn.LayerNorm(C)'s initialisation: weight (C) = 1, bias (C) = 0. Draws
/// nothing from the generator (docs/torch_rng.md §7).
/// Throws std::invalid_argument unless C >= 1.
void layer_norm_init(float* weight, float* bias, int C);

}  // namespace attnlab::kernels
