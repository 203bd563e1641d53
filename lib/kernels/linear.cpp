#include "kernels/linear.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "kernels/vector/column_sums.hpp"
#include "random/generator.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

namespace {

void check_dims(const char* where, int N, int C, int OC) {
  if (N < 1 || C < 1 || OC < 1)
    throw std::invalid_argument(std::string(where) + ": need N, C, OC >= 1, got N=" +
                                std::to_string(N) + " C=" + std::to_string(C) +
                                " OC=" + std::to_string(OC));
}

}  // namespace

template <class T>
void linear_forward(T* out, const T* inp, const T* weight, const T* bias, int N, int C, int OC) {
  check_dims("linear_forward", N, C, OC);
  T beta = T(0);
  if (bias) {
    // out (N, OC) <- bias in every row, then accumulate the product into it
    for (int n = 0; n < N; ++n) {
      T* row = out + static_cast<std::size_t>(n) * OC;
      for (int o = 0; o < OC; ++o) row[o] = bias[o];
    }
    beta = T(1);
  }
  // out (N, OC) += inp (N, C) · weight (OC, C)^T
  tensor::gemm<T>(false, true, N, OC, C, T(1), inp, C, weight, C, beta, out, OC);
}

template <class T>
void linear_backward(T* dinp, T* dweight, T* dbias, const T* dout, const T* inp, const T* weight,
                     int N, int C, int OC) {
  check_dims("linear_backward", N, C, OC);
  if (dinp) {
    // dinp (N, C) += dout (N, OC) · weight (OC, C)
    tensor::gemm<T>(false, false, N, C, OC, T(1), dout, OC, weight, C, T(1), dinp, C);
  }
  if (dweight) {
    // dweight (OC, C) += dout^T (OC, N) · inp (N, C)
    tensor::gemm<T>(true, false, OC, C, N, T(1), dout, OC, inp, C, T(1), dweight, C);
  }
  if (dbias) {
    // dbias (OC) += column sums of dout (N, OC), rows in order
    detail::add_column_sums(dbias, dout, std::size_t(OC), std::size_t(N), std::size_t(OC));
  }
}

void linear_init(random::Generator& gen, float* weight, float* bias, int in, int out) {
  if (in < 1 || out < 1)
    throw std::invalid_argument("linear_init: need in, out >= 1, got in=" + std::to_string(in) +
                                " out=" + std::to_string(out));
  // kaiming_uniform_(weight, a=sqrt(5)) evaluated step by step as Python
  // does, in double: sqrt(5)**2 is 5.000000000000001, not 5.
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + a * a));
  const double std_dev = gain / std::sqrt(static_cast<double>(in));
  const double w_bound = std::sqrt(3.0) * std_dev;
  gen.uniform(weight, static_cast<std::size_t>(in) * out, -w_bound, w_bound);
  if (bias) {
    const double b_bound = 1.0 / std::sqrt(static_cast<double>(in));
    gen.uniform(bias, static_cast<std::size_t>(out), -b_bound, b_bound);
  }
}

template void linear_forward<float>(float*, const float*, const float*, const float*, int, int,
                                    int);
template void linear_forward<double>(double*, const double*, const double*, const double*, int,
                                     int, int);
template void linear_backward<float>(float*, float*, float*, const float*, const float*,
                                     const float*, int, int, int);
template void linear_backward<double>(double*, double*, double*, const double*, const double*,
                                      const double*, int, int, int);

}  // namespace attnlab::kernels
