#include "attnlab/nn/additive_attention.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/additive_attention.hpp"

namespace attnlab::nn {

AdditiveAttention::AdditiveAttention(const AdditiveAttentionOptions& o, Generator& gen, const Scope& scope)
    : Module(scope), o_(o) {
  if (o.query_size() < 1 || o.key_size() < 1 || o.hidden_size() < 1)
    throw std::invalid_argument("AdditiveAttention: query_size, key_size and hidden_size must be >= 1, got " +
                                std::to_string(o.query_size()) + ", " + std::to_string(o.key_size()) + " and " +
                                std::to_string(o.hidden_size()));
  w_ = register_parameter("W_a.weight", {o.hidden_size(), o.query_size()});
  u_ = register_parameter("U_a.weight", {o.hidden_size(), o.key_size()});
  v_ = register_parameter("v_a.weight", {1, o.hidden_size()});
  kernels::additive_attention_init(gen, value(w_), value(u_), value(v_), o.query_size(), o.key_size(), o.hidden_size());
}

TensorView<2> AdditiveAttention::W_a() const {
  return view<2>(value(w_), {std::size_t(o_.hidden_size()), std::size_t(o_.query_size())});
}
TensorView<2> AdditiveAttention::U_a() const {
  return view<2>(value(u_), {std::size_t(o_.hidden_size()), std::size_t(o_.key_size())});
}
TensorView<2> AdditiveAttention::v_a() const { return view<2>(value(v_), {1, std::size_t(o_.hidden_size())}); }

Tensor<3> AdditiveAttention::project_keys(const Tensor<3>& keys) const {
  check_shape("AdditiveAttention::project_keys", "keys", shape_of(keys), {-1, -1, o_.key_size()}, {"B", "S"});
  Tensor<3> pk = Tensor<3>::from_shape({keys.shape()[0], keys.shape()[1], std::size_t(o_.hidden_size())});
  const int rows = int(keys.shape()[0] * keys.shape()[1]);
  if (rows > 0) kernels::additive_project_keys(pk.data(), keys.data(), value(u_), rows, o_.key_size(), o_.hidden_size());
  return pk;
}

Tensor<3> AdditiveAttention::project_keys_backward(const Tensor<3>& grad_projected_keys, const Tensor<3>& keys) {
  check_shape("AdditiveAttention::project_keys_backward", "keys", shape_of(keys), {-1, -1, o_.key_size()},
              {"B", "S"});
  check_shape("AdditiveAttention::project_keys_backward", "grad_projected_keys", shape_of(grad_projected_keys),
              {long(keys.shape()[0]), long(keys.shape()[1]), o_.hidden_size()});
  Tensor<3> dk = xt::zeros<float>(keys.shape());
  const int rows = int(keys.shape()[0] * keys.shape()[1]);
  if (rows > 0)
    kernels::additive_project_keys_backward(dk.data(), grad(u_), grad_projected_keys.data(), keys.data(), value(u_), rows,
                                   o_.key_size(), o_.hidden_size());
  return dk;
}

void AdditiveAttention::check(const char* where, std::size_t B, std::size_t T, const std::vector<std::size_t>& query,
                              const Tensor<3>& pk, const Tensor<3>& values) const {
  check_shape(where, "projected_keys", shape_of(pk), {long(B), -1, o_.hidden_size()}, {"B", "S"});
  check_shape(where, "values", shape_of(values), {long(B), long(pk.shape()[1]), -1}, {"B", "S", "Dv"});
  if (B == 0 || T == 0 || pk.shape()[1] == 0 || values.shape()[2] == 0)
    throw std::invalid_argument(std::string(where) + ": empty input, query " + shape_string(query) +
                                ", projected_keys " + shape_string(shape_of(pk)) + ", values " +
                                shape_string(shape_of(values)));
}

void AdditiveAttention::run(float* context, float* weights, const float* query, const Tensor<3>& pk,
                            const Tensor<3>& values, const std::uint8_t* padding, int B, int T) const {
  const kernels::AdditiveDims d{.B = B, .T = T, .S = int(pk.shape()[1]), .Dq = o_.query_size(), .Dk = o_.key_size(),
                       .A = o_.hidden_size(), .Dv = int(values.shape()[2])};
  std::vector<float> scratch(kernels::additive_forward_scratch_size(d));
  kernels::additive_attention_forward(context, weights, scratch.data(), query, pk.data(), values.data(), padding, value(w_),
                             value(v_), d);
}

AdditiveAttentionOutput<2> AdditiveAttention::forward(const Tensor<2>& query, const Tensor<3>& pk,
                                                      const Tensor<3>& values,
                                                      const AdditiveAttentionForwardOptions& f) {
  constexpr const char* where = "AdditiveAttention::forward";
  check_shape(where, "query", shape_of(query), {-1, o_.query_size()}, {"B"});
  const std::size_t B = query.shape()[0];
  check(where, B, 1, shape_of(query), pk, values);
  const std::uint8_t* padding = nullptr;
  if (f.key_padding_mask.mask) {
    check_shape(where, "key_padding_mask", shape_of(*f.key_padding_mask.mask), {long(B), long(pk.shape()[1])});
    padding = reinterpret_cast<const std::uint8_t*>(f.key_padding_mask.mask->data());
  }
  AdditiveAttentionOutput<2> r{Tensor<2>::from_shape({B, values.shape()[2]}),
                               Tensor<2>::from_shape({B, pk.shape()[1]})};
  run(r.context.data(), r.weights.data(), query.data(), pk, values, padding, int(B), 1);
  return r;
}

AdditiveAttentionOutput<3> AdditiveAttention::forward(const Tensor<3>& query, const Tensor<3>& pk,
                                                      const Tensor<3>& values,
                                                      const AdditiveAttentionForwardOptions& f) {
  constexpr const char* where = "AdditiveAttention::forward";
  check_shape(where, "query", shape_of(query), {-1, -1, o_.query_size()}, {"B", "T"});
  const std::size_t B = query.shape()[0], T = query.shape()[1];
  check(where, B, T, shape_of(query), pk, values);
  const std::uint8_t* padding = nullptr;
  if (f.key_padding_mask.mask) {
    check_shape(where, "key_padding_mask", shape_of(*f.key_padding_mask.mask), {long(B), long(pk.shape()[1])});
    padding = reinterpret_cast<const std::uint8_t*>(f.key_padding_mask.mask->data());
  }
  AdditiveAttentionOutput<3> r{Tensor<3>::from_shape({B, T, values.shape()[2]}),
                               Tensor<3>::from_shape({B, T, pk.shape()[1]})};
  run(r.context.data(), r.weights.data(), query.data(), pk, values, padding, int(B), int(T));
  return r;
}

void AdditiveAttention::run_backward(float* d_query, float* d_pk, float* d_values, const float* d_context,
                                     const float* d_weights, const float* query, const Tensor<3>& pk,
                                     const Tensor<3>& values, const float* weights, int B, int T) {
  const kernels::AdditiveDims d{.B = B, .T = T, .S = int(pk.shape()[1]), .Dq = o_.query_size(), .Dk = o_.key_size(),
                       .A = o_.hidden_size(), .Dv = int(values.shape()[2])};
  std::vector<float> scratch(kernels::additive_backward_scratch_size(d));
  kernels::additive_attention_backward(d_query, d_pk, d_values, grad(w_), grad(v_), scratch.data(), d_context, d_weights,
                              query, pk.data(), values.data(), weights, value(w_), value(v_), d);
}

AdditiveAttentionGradients<2> AdditiveAttention::backward(const Tensor<2>& grad_context, const Tensor<2>* grad_weights,
                                                          const Tensor<2>& query, const Tensor<3>& pk,
                                                          const Tensor<3>& values, const Tensor<2>& weights) {
  constexpr const char* where = "AdditiveAttention::backward";
  check_shape(where, "query", shape_of(query), {-1, o_.query_size()}, {"B"});
  const long B = long(query.shape()[0]), S = long(pk.shape()[1]);
  check(where, std::size_t(B), 1, shape_of(query), pk, values);
  check_shape(where, "grad_context", shape_of(grad_context), {B, long(values.shape()[2])});
  check_shape(where, "weights", shape_of(weights), {B, S});
  if (grad_weights) check_shape(where, "grad_weights", shape_of(*grad_weights), {B, S});
  AdditiveAttentionGradients<2> g{xt::zeros<float>(query.shape()), xt::zeros<float>(pk.shape()),
                                  xt::zeros<float>(values.shape())};
  run_backward(g.query.data(), g.projected_keys.data(), g.values.data(), grad_context.data(),
               grad_weights ? grad_weights->data() : nullptr, query.data(), pk, values, weights.data(), int(B), 1);
  return g;
}

AdditiveAttentionGradients<3> AdditiveAttention::backward(const Tensor<3>& grad_context, const Tensor<3>* grad_weights,
                                                          const Tensor<3>& query, const Tensor<3>& pk,
                                                          const Tensor<3>& values, const Tensor<3>& weights) {
  constexpr const char* where = "AdditiveAttention::backward";
  check_shape(where, "query", shape_of(query), {-1, -1, o_.query_size()}, {"B", "T"});
  const long B = long(query.shape()[0]), T = long(query.shape()[1]), S = long(pk.shape()[1]);
  check(where, std::size_t(B), std::size_t(T), shape_of(query), pk, values);
  check_shape(where, "grad_context", shape_of(grad_context), {B, T, long(values.shape()[2])});
  check_shape(where, "weights", shape_of(weights), {B, T, S});
  if (grad_weights) check_shape(where, "grad_weights", shape_of(*grad_weights), {B, T, S});
  AdditiveAttentionGradients<3> g{xt::zeros<float>(query.shape()), xt::zeros<float>(pk.shape()),
                                  xt::zeros<float>(values.shape())};
  run_backward(g.query.data(), g.projected_keys.data(), g.values.data(), grad_context.data(),
               grad_weights ? grad_weights->data() : nullptr, query.data(), pk, values, weights.data(), int(B),
               int(T));
  return g;
}

}  // namespace attnlab::nn
