#include "attnlab/nn/linear.hpp"

#include <stdexcept>
#include <string>

#include "kernels/linear.hpp"

namespace attnlab::nn {

Linear::Linear(const LinearOptions& o, Generator& gen, const Scope& scope) : Module(scope), o_(o) {
  if (o.in_features() < 1 || o.out_features() < 1)
    throw std::invalid_argument("Linear: in_features and out_features must be >= 1, got " +
                                std::to_string(o.in_features()) + " and " + std::to_string(o.out_features()));
  w_ = register_parameter("weight", {o.out_features(), o.in_features()});
  b_ = o.bias() ? register_parameter("bias", {o.out_features()}) : std::size_t(-1);
  kernels::linear_init(gen, value(w_), o.bias() ? value(b_) : nullptr, o.in_features(), o.out_features());
}

void Linear::check_last(const char* where, const char* arg, const std::vector<std::size_t>& shape, int want) {
  std::vector<long> expected(shape.size(), -1);
  expected.back() = want;
  check_shape(where, arg, shape, expected);
}

void Linear::forward_rows(float* y, const float* x, std::size_t rows) const {
  if (rows == 0) return;
  kernels::linear_forward(y, x, value(w_), o_.bias() ? value(b_) : static_cast<const float*>(nullptr), int(rows),
                 o_.in_features(), o_.out_features());
}

void Linear::backward_rows(float* dx, const float* dy, const float* x, std::size_t rows) {
  if (rows == 0) return;
  kernels::linear_backward(dx, grad(w_), o_.bias() ? grad(b_) : nullptr, dy, x, value(w_), int(rows), o_.in_features(),
                  o_.out_features());
}

TensorView<2> Linear::weight() const {
  return view<2>(value(w_), {std::size_t(o_.out_features()), std::size_t(o_.in_features())});
}
TensorView<1> Linear::bias() const {
  if (!o_.bias()) throw std::logic_error("Linear has no bias (bias=false)");
  return view<1>(value(b_), {std::size_t(o_.out_features())});
}

}  // namespace attnlab::nn
