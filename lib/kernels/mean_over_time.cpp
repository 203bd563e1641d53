#include "kernels/mean_over_time.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace attnlab::kernels {

namespace {

void check_dims(const char* where, int B, int T, int C) {
  if (B < 1 || T < 1 || C < 1)
    throw std::invalid_argument(std::string(where) + ": need B, T, C >= 1, got B=" +
                                std::to_string(B) + " T=" + std::to_string(T) +
                                " C=" + std::to_string(C));
}

}  // namespace

template <class Real>
void mean_over_time_forward(Real* out, const Real* inp, int B, int T, int C) {
  check_dims("mean_over_time_forward", B, T, C);
  const Real count = static_cast<Real>(T);
  for (int b = 0; b < B; ++b) {
    Real* o = out + static_cast<std::size_t>(b) * C;  // (C)
    for (int c = 0; c < C; ++c) o[c] = Real(0);
    for (int t = 0; t < T; ++t) {
      const Real* x = inp + (static_cast<std::size_t>(b) * T + t) * C;  // (C)
      for (int c = 0; c < C; ++c) o[c] += x[c];
    }
    for (int c = 0; c < C; ++c) o[c] /= count;
  }
}

template <class Real>
void mean_over_time_backward(Real* dinp, const Real* dout, int B, int T, int C, bool write_dinp) {
  check_dims("mean_over_time_backward", B, T, C);
  const Real count = static_cast<Real>(T);
  for (int b = 0; b < B; ++b) {
    const Real* g = dout + static_cast<std::size_t>(b) * C;  // (C)
    for (int t = 0; t < T; ++t) {
      Real* dx = dinp + (static_cast<std::size_t>(b) * T + t) * C;  // (C)
      // Real(0) + x, not x: a -0 becomes +0 as it does when added into zeros
      if (write_dinp)
        for (int c = 0; c < C; ++c) dx[c] = Real(0) + g[c] / count;
      else
        for (int c = 0; c < C; ++c) dx[c] += g[c] / count;
    }
  }
}

template void mean_over_time_forward<float>(float*, const float*, int, int, int);
template void mean_over_time_forward<double>(double*, const double*, int, int, int);
template void mean_over_time_backward<float>(float*, const float*, int, int, int, bool);
template void mean_over_time_backward<double>(double*, const double*, int, int, int, bool);

}  // namespace attnlab::kernels
