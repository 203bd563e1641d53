#include "attnlab/nn/mean_over_time.hpp"

#include <stdexcept>
#include <string>

#include "kernels/mean_over_time.hpp"

namespace attnlab::nn {

Tensor<2> MeanOverTime::forward(const Tensor<3>& x) const {
  const std::size_t B = x.shape()[0], T = x.shape()[1], C = x.shape()[2];
  if (B == 0 || T == 0 || C == 0)
    throw std::invalid_argument("MeanOverTime::forward: empty input " + shape_string(shape_of(x)));
  Tensor<2> y = Tensor<2>::from_shape({B, C});
  kernels::mean_over_time_forward(y.data(), x.data(), int(B), int(T), int(C));
  return y;
}

Tensor<1> MeanOverTime::forward(const Tensor<2>& x) const {
  const std::size_t T = x.shape()[0], C = x.shape()[1];
  if (T == 0 || C == 0) throw std::invalid_argument("MeanOverTime::forward: empty input " + shape_string(shape_of(x)));
  Tensor<1> y = Tensor<1>::from_shape({C});
  kernels::mean_over_time_forward(y.data(), x.data(), 1, int(T), int(C));
  return y;
}

Tensor<3> MeanOverTime::backward(const Tensor<2>& grad_output, const Tensor<3>& x) const {
  check_shape("MeanOverTime::backward", "grad_output", shape_of(grad_output), {long(x.shape()[0]), long(x.shape()[2])});
  Tensor<3> dx = xt::zeros<float>(x.shape());
  kernels::mean_over_time_backward(dx.data(), grad_output.data(), int(x.shape()[0]), int(x.shape()[1]), int(x.shape()[2]));
  return dx;
}

Tensor<2> MeanOverTime::backward(const Tensor<1>& grad_output, const Tensor<2>& x) const {
  check_shape("MeanOverTime::backward", "grad_output", shape_of(grad_output), {long(x.shape()[1])});
  Tensor<2> dx = xt::zeros<float>(x.shape());
  kernels::mean_over_time_backward(dx.data(), grad_output.data(), 1, int(x.shape()[0]), int(x.shape()[1]));
  return dx;
}

void MeanOverTime::add_to_cache(Cache& cache) const { cache.add_state(0); }

void MeanOverTime::step_rows(float* out, const float* x, int C, Cache& cache, StepCursor& cursor) const {
  std::vector<float>& sum = cache.next_state(cursor, std::size_t(cache.batch()) * C, "MeanOverTime::step");
  // the forward's order: sum the steps in t order, then divide by the count
  const float count = float(cache.length() + 1);
  for (std::size_t i = 0; i < sum.size(); ++i) {
    sum[i] += x[i];
    out[i] = sum[i] / count;
  }
}

}  // namespace attnlab::nn
