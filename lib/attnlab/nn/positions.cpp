#include "attnlab/nn/positions.hpp"

#include <stdexcept>
#include <string>

#include "kernels/positions.hpp"

namespace attnlab::nn {

Tensor<2> sinusoidal_positions(int length, int d_model) {
  if (length < 0 || d_model < 1)
    throw std::invalid_argument("sinusoidal_positions: length must be >= 0 and d_model >= 1, got " +
                                std::to_string(length) + " and " + std::to_string(d_model));
  Tensor<2> pe = Tensor<2>::from_shape({std::size_t(length), std::size_t(d_model)});
  kernels::sinusoidal_positions_fill(pe.data(), length, d_model);
  return pe;
}

namespace {
std::string too_long(const char* where, std::size_t T, int max_len) {
  return std::string(where) + ": a sequence of " + std::to_string(T) + " steps is longer than max_len " +
         std::to_string(max_len);
}
}  // namespace

// ---- AddPositions ----------------------------------------------------------

AddPositions::AddPositions(int max_len, const Scope& scope) : Module(scope), max_len_(max_len) {
  if (max_len < 1) throw std::invalid_argument("AddPositions: max_len must be >= 1, got " + std::to_string(max_len));
}

const Tensor<2>& AddPositions::table(int C) {
  auto it = tables_.find(C);
  if (it == tables_.end()) it = tables_.emplace(C, sinusoidal_positions(max_len_, C)).first;
  return it->second;
}

void AddPositions::check_length(const char* where, std::size_t T) const {
  if (T > std::size_t(max_len_)) throw std::invalid_argument(too_long(where, T, max_len_));
}

Tensor<3> AddPositions::forward(const Tensor<3>& x) {
  const std::size_t B = x.shape()[0], T = x.shape()[1], C = x.shape()[2];
  check_length("AddPositions::forward", T);
  if (C == 0) throw std::invalid_argument("AddPositions::forward: x has width 0");
  const float* pe = table(int(C)).data();
  Tensor<3> y = Tensor<3>::from_shape(x.shape());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < T * C; ++i) y.data()[b * T * C + i] = x.data()[b * T * C + i] + pe[i];
  return y;
}

Tensor<2> AddPositions::forward(const Tensor<2>& x) {
  const std::size_t T = x.shape()[0], C = x.shape()[1];
  check_length("AddPositions::forward", T);
  if (C == 0) throw std::invalid_argument("AddPositions::forward: x has width 0");
  const float* pe = table(int(C)).data();
  Tensor<2> y = Tensor<2>::from_shape(x.shape());
  for (std::size_t i = 0; i < T * C; ++i) y.data()[i] = x.data()[i] + pe[i];
  return y;
}

Tensor<3> AddPositions::backward(const Tensor<3>& grad_output, const Tensor<3>& x) {
  check_shape("AddPositions::backward", "grad_output", shape_of(grad_output),
              {long(x.shape()[0]), long(x.shape()[1]), long(x.shape()[2])});
  return grad_output;
}

Tensor<2> AddPositions::backward(const Tensor<2>& grad_output, const Tensor<2>& x) {
  check_shape("AddPositions::backward", "grad_output", shape_of(grad_output), {long(x.shape()[0]), long(x.shape()[1])});
  return grad_output;
}

void AddPositions::step_rows(float* out, const float* x, int C, Cache& cache, StepCursor&) {
  const int t = cache.length();
  if (t >= max_len_)
    throw std::length_error("AddPositions::step: step " + std::to_string(t + 1) + " is beyond max_len " +
                            std::to_string(max_len_));
  const float* row = table(C).data() + std::size_t(t) * C;
  for (int b = 0; b < cache.batch(); ++b)
    for (int c = 0; c < C; ++c) out[std::size_t(b) * C + c] = x[std::size_t(b) * C + c] + row[c];
}

// ---- LearnedPositions ------------------------------------------------------

LearnedPositions::LearnedPositions(int max_len, int d_model, Generator& gen, const Scope& scope)
    : Module(scope), max_len_(max_len), d_model_(d_model) {
  if (max_len < 1 || d_model < 1)
    throw std::invalid_argument("LearnedPositions: max_len and d_model must be >= 1, got " + std::to_string(max_len) +
                                " and " + std::to_string(d_model));
  w_ = register_parameter("weight", {max_len, d_model});
  kernels::learned_positions_init(gen, value(w_), max_len, d_model);
}

TensorView<2> LearnedPositions::weight() const {
  return view<2>(value(w_), {std::size_t(max_len_), std::size_t(d_model_)});
}

void LearnedPositions::check(const char* where, const std::vector<std::size_t>& shape) const {
  std::vector<long> want(shape.size(), -1);
  want.back() = d_model_;
  check_shape(where, "x", shape, want, shape.size() == 3 ? std::vector<std::string>{"B", "T"}
                                                         : std::vector<std::string>{"T"});
  if (shape[shape.size() - 2] > std::size_t(max_len_))
    throw std::invalid_argument(too_long(where, shape[shape.size() - 2], max_len_));
}

Tensor<3> LearnedPositions::forward(const Tensor<3>& x) {
  check("LearnedPositions::forward", shape_of(x));
  const std::size_t B = x.shape()[0], TC = x.shape()[1] * x.shape()[2];
  const float* P = value(w_);
  Tensor<3> y = Tensor<3>::from_shape(x.shape());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < TC; ++i) y.data()[b * TC + i] = x.data()[b * TC + i] + P[i];
  return y;
}

Tensor<2> LearnedPositions::forward(const Tensor<2>& x) {
  check("LearnedPositions::forward", shape_of(x));
  const float* P = value(w_);
  Tensor<2> y = Tensor<2>::from_shape(x.shape());
  for (std::size_t i = 0; i < x.size(); ++i) y.data()[i] = x.data()[i] + P[i];
  return y;
}

Tensor<3> LearnedPositions::backward(const Tensor<3>& grad_output, const Tensor<3>& x) {
  check("LearnedPositions::backward", shape_of(x));
  check_shape("LearnedPositions::backward", "grad_output", shape_of(grad_output),
              {long(x.shape()[0]), long(x.shape()[1]), long(x.shape()[2])});
  const std::size_t B = x.shape()[0], TC = x.shape()[1] * x.shape()[2];
  float* dP = grad(w_);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < TC; ++i) dP[i] += grad_output.data()[b * TC + i];
  return grad_output;
}

Tensor<2> LearnedPositions::backward(const Tensor<2>& grad_output, const Tensor<2>& x) {
  check("LearnedPositions::backward", shape_of(x));
  check_shape("LearnedPositions::backward", "grad_output", shape_of(grad_output), {long(x.shape()[0]), long(x.shape()[1])});
  float* dP = grad(w_);
  for (std::size_t i = 0; i < x.size(); ++i) dP[i] += grad_output.data()[i];
  return grad_output;
}

void LearnedPositions::step_rows(float* out, const float* x, int C, Cache& cache, StepCursor&) {
  const int t = cache.length();
  if (C != d_model_)
    throw std::invalid_argument("LearnedPositions::step: x_t has width " + std::to_string(C) + ", expected " +
                                std::to_string(d_model_));
  if (t >= max_len_)
    throw std::length_error("LearnedPositions::step: step " + std::to_string(t + 1) + " is beyond max_len " +
                            std::to_string(max_len_));
  const float* row = value(w_) + std::size_t(t) * C;
  for (int b = 0; b < cache.batch(); ++b)
    for (int c = 0; c < C; ++c) out[std::size_t(b) * C + c] = x[std::size_t(b) * C + c] + row[c];
}

}  // namespace attnlab::nn
