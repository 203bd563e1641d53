#include "nn/layer_norm.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace attnlab::nn {

namespace {

void check_dims(const char* where, int N, int C) {
  if (N < 1 || C < 1)
    throw std::invalid_argument(std::string(where) + ": need N, C >= 1, got N=" +
                                std::to_string(N) + " C=" + std::to_string(C));
}

}  // namespace

template <class T>
void layer_norm_forward(T* out, T* mean, T* rstd, const T* inp, const T* weight, const T* bias,
                        int N, int C, double eps) {
  check_dims("layer_norm_forward", N, C);
  const T eps_t = static_cast<T>(eps);
  for (int n = 0; n < N; ++n) {
    const T* x = inp + static_cast<std::size_t>(n) * C;  // (C)
    T* y = out + static_cast<std::size_t>(n) * C;        // (C)
    // pass 1: mean
    T m = T(0);
    for (int c = 0; c < C; ++c) m += x[c];
    m /= static_cast<T>(C);
    // pass 2: biased variance around the mean (two passes: no cancellation
    // from E[x^2] - E[x]^2)
    T v = T(0);
    for (int c = 0; c < C; ++c) {
      const T d = x[c] - m;
      v += d * d;
    }
    v /= static_cast<T>(C);
    const T s = T(1) / std::sqrt(v + eps_t);
    // pass 3: normalise, scale and shift
    for (int c = 0; c < C; ++c) y[c] = (x[c] - m) * s * weight[c] + bias[c];
    mean[n] = m;
    rstd[n] = s;
  }
}

template <class T>
void layer_norm_backward(T* dinp, T* dweight, T* dbias, const T* dout, const T* mean,
                         const T* rstd, const T* inp, const T* weight, int N, int C) {
  check_dims("layer_norm_backward", N, C);
  const T inv_c = T(1) / static_cast<T>(C);
  for (int n = 0; n < N; ++n) {
    const T* x = inp + static_cast<std::size_t>(n) * C;    // (C)
    const T* dy = dout + static_cast<std::size_t>(n) * C;  // (C)
    const T m = mean[n];
    const T s = rstd[n];
    // pass 1: the two row means the input gradient needs
    T g_mean = T(0);       // mean_c(dout * weight)
    T g_xhat_mean = T(0);  // mean_c(dout * weight * xhat)
    for (int c = 0; c < C; ++c) {
      const T xhat = (x[c] - m) * s;
      const T g = dy[c] * weight[c];
      g_mean += g;
      g_xhat_mean += g * xhat;
    }
    g_mean *= inv_c;
    g_xhat_mean *= inv_c;
    // pass 2: accumulate the three gradients
    T* dx = dinp ? dinp + static_cast<std::size_t>(n) * C : nullptr;
    for (int c = 0; c < C; ++c) {
      const T xhat = (x[c] - m) * s;
      if (dbias) dbias[c] += dy[c];
      if (dweight) dweight[c] += dy[c] * xhat;
      if (dx) dx[c] += s * (dy[c] * weight[c] - g_mean - xhat * g_xhat_mean);
    }
  }
}

void layer_norm_init(float* weight, float* bias, int C) {
  check_dims("layer_norm_init", 1, C);
  for (int c = 0; c < C; ++c) {
    weight[c] = 1.0f;
    bias[c] = 0.0f;
  }
}

template void layer_norm_forward<float>(float*, float*, float*, const float*, const float*,
                                        const float*, int, int, double);
template void layer_norm_forward<double>(double*, double*, double*, const double*, const double*,
                                         const double*, int, int, double);
template void layer_norm_backward<float>(float*, float*, float*, const float*, const float*,
                                         const float*, const float*, const float*, int, int);
template void layer_norm_backward<double>(double*, double*, double*, const double*,
                                          const double*, const double*, const double*,
                                          const double*, int, int);

}  // namespace attnlab::nn
