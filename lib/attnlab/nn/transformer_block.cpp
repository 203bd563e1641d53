#include "attnlab/nn/transformer_block.hpp"

#include <stdexcept>
#include <string>

#include "kernels/cost.hpp"
#include "kernels/multihead_attention.hpp"

namespace attnlab::nn {

namespace {
constexpr const char* kForward = "TransformerBlock::forward";
constexpr const char* kBackward = "TransformerBlock::backward";
constexpr const char* kStep = "TransformerBlock::step";

Tensor<3> batched(const Tensor<2>& x) {
  Tensor<3> out = Tensor<3>::from_shape({1, x.shape()[0], x.shape()[1]});
  std::copy(x.begin(), x.end(), out.begin());
  return out;
}
Tensor<2> unbatched(const Tensor<3>& x) {
  Tensor<2> out = Tensor<2>::from_shape({x.shape()[1], x.shape()[2]});
  std::copy(x.begin(), x.end(), out.begin());
  return out;
}
}  // namespace

TransformerBlock::TransformerBlock(const TransformerBlockOptions& o, Generator& gen, const Scope& scope)
    : Module(scope), o_(o), gen_(&gen) {
  if (o.d_model() < 1 || o.nhead() < 1 || o.dim_feedforward() < 1)
    throw std::invalid_argument("TransformerBlock: d_model, nhead and dim_feedforward must be >= 1, got " +
                                std::to_string(o.d_model()) + ", " + std::to_string(o.nhead()) + " and " +
                                std::to_string(o.dim_feedforward()));
  kernels::mha_dims(1, 1, 1, o.d_model(), o.nhead());  // throws when nhead does not divide d_model
  if (!(o.dropout() >= 0.0 && o.dropout() <= 1.0))
    throw std::invalid_argument("TransformerBlock: dropout probability has to be between 0 and 1, but got " +
                                std::to_string(o.dropout()));
  const int C = o.d_model(), F = o.dim_feedforward();
  const auto specs = o.norm_first() ? kernels::pre_norm_block_param_specs(C, F) : kernels::post_norm_block_param_specs(C, F);
  first_ = register_parameter(specs[0].name, specs[0].shape);
  for (std::size_t i = 1; i < specs.size(); ++i) register_parameter(specs[i].name, specs[i].shape);
  if (o.norm_first())
    kernels::pre_norm_block_init(gen, pre_norm(false), C, F);
  else
    kernels::post_norm_block_init(gen, post_norm(false), C, F);
}

kernels::PreNormTensors<float> TransformerBlock::pre_norm(bool grads) const {
  auto at = [&](std::size_t i) { return grads ? grad(first_ + i) : value(first_ + i); };
  return {at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9), at(10), at(11)};
}

kernels::PostNormTensors<float> TransformerBlock::post_norm(bool grads) const {
  auto at = [&](std::size_t i) { return grads ? grad(first_ + i) : value(first_ + i); };
  return {at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9), at(10), at(11)};
}

kernels::BlockDims TransformerBlock::dims(int B, int T) const {
  return {.B = B, .T = T, .C = o_.d_model(), .H = o_.nhead(), .F = o_.dim_feedforward(), .dropout = o_.dropout(),
          .causal = o_.causal()};
}

void TransformerBlock::ensure_workspace(int B, int T) {
  // grown when a batch is larger or the length differs; reused otherwise (no allocation)
  if (B <= ws_batch_ && T == ws_T_) return;
  ws_batch_ = std::max(B, ws_batch_);
  ws_T_ = T;
  const int C = o_.d_model(), H = o_.nhead(), F = o_.dim_feedforward();
  if (o_.norm_first())
    pre_ws_ = std::make_unique<kernels::PreNormWorkspace<float>>(ws_batch_, T, C, H, F);
  else
    post_ws_ = std::make_unique<kernels::PostNormWorkspace<float>>(ws_batch_, T, C, H, F);
}

Tensor<3> TransformerBlock::forward(const Tensor<3>& x) {
  check_shape(kForward, "x", shape_of(x), {-1, -1, o_.d_model()}, {"B", "T"});
  const int B = int(x.shape()[0]), T = int(x.shape()[1]);
  if (B == 0 || T == 0) throw std::invalid_argument(std::string(kForward) + ": empty input " + shape_string(shape_of(x)));
  ensure_workspace(B, T);
  Tensor<3> out = Tensor<3>::from_shape(x.shape());
  Generator* train = is_training() ? gen_ : nullptr;
  if (o_.norm_first())
    kernels::pre_norm_block_forward(out.data(), *pre_ws_, x.data(), pre_norm(false), dims(B, T), train);
  else
    kernels::post_norm_block_forward(out.data(), *post_ws_, x.data(), post_norm(false), dims(B, T), train);
  last_B_ = B;
  last_T_ = T;
  return out;
}

Tensor<2> TransformerBlock::forward(const Tensor<2>& x) {
  check_shape(kForward, "x", shape_of(x), {-1, o_.d_model()}, {"T"});
  return unbatched(forward(batched(x)));
}

Tensor<3> TransformerBlock::backward(const Tensor<3>& grad_output, const Tensor<3>& x) {
  if (last_B_ == 0) throw std::logic_error(std::string(kBackward) + ": no forward() to go back through");
  const std::vector<long> want{last_B_, last_T_, o_.d_model()};
  check_shape(kBackward, "x", shape_of(x), want);
  check_shape(kBackward, "grad_output", shape_of(grad_output), want);
  Tensor<3> dx = xt::zeros<float>(x.shape());
  if (o_.norm_first())
    kernels::pre_norm_block_backward(dx.data(), pre_norm(true), *pre_ws_, grad_output.data(), x.data(),
                                       pre_norm(false), dims(last_B_, last_T_));
  else
    kernels::post_norm_block_backward(dx.data(), post_norm(true), *post_ws_, grad_output.data(), x.data(),
                                     post_norm(false), dims(last_B_, last_T_));
  return dx;
}

Tensor<2> TransformerBlock::backward(const Tensor<2>& grad_output, const Tensor<2>& x) {
  check_shape(kBackward, "grad_output", shape_of(grad_output), {long(x.shape()[0]), long(x.shape()[1])});
  return unbatched(backward(batched(grad_output), batched(x)));
}

Cache TransformerBlock::init_cache(const CacheOptions& o) const {
  Cache cache(o);
  add_to_cache(cache);
  return cache;
}

void TransformerBlock::add_to_cache(Cache& cache) const {
  if (!o_.causal())
    throw std::logic_error("TransformerBlock: init_cache needs causal=true; a non-causal block attends to steps a "
                           "stream has not seen yet");
  cache.add_key_values(o_.d_model());
}

void TransformerBlock::step_rows(float* out, const float* x, Cache& cache, StepCursor& cursor) {
  cache.check_room(kStep);
  Cache::KeyValues& kv = cache.next_key_values(cursor, o_.d_model(), kStep);
  const int B = cache.batch(), C = o_.d_model(), H = o_.nhead(), F = o_.dim_feedforward(), L = cache.max_len();
  const kernels::BlockDims d = dims(B, 1);
  if (o_.norm_first()) {
    float* scratch = cache.scratch(kernels::pre_norm_step_scratch_size(B, C, H, F, L));
    kernels::pre_norm_block_step(out, scratch, kv.keys.data(), kv.values.data(), cache.length(), L, x,
                                   pre_norm(false), d);
  } else {
    float* scratch = cache.scratch(kernels::post_norm_step_scratch_size(B, C, H, F, L));
    kernels::post_norm_block_step(out, scratch, kv.keys.data(), kv.values.data(), cache.length(), L, x,
                                 post_norm(false), d);
  }
}

Tensor<1> TransformerBlock::step(const Tensor<1>& x_t, Cache& cache) {
  cache.check_step_input(kStep, shape_of(x_t), o_.d_model());
  Tensor<1> out = Tensor<1>::from_shape(x_t.shape());
  StepCursor cursor;
  step_rows(out.data(), x_t.data(), cache, cursor);
  cache.advance();
  return out;
}

Tensor<2> TransformerBlock::step(const Tensor<2>& x_t, Cache& cache) {
  cache.check_step_input(kStep, shape_of(x_t), o_.d_model());
  Tensor<2> out = Tensor<2>::from_shape(x_t.shape());
  StepCursor cursor;
  step_rows(out.data(), x_t.data(), cache, cursor);
  cache.advance();
  return out;
}

std::size_t TransformerBlock::forward_macs(const std::vector<std::size_t>& s) const {
  const std::size_t B = s.size() == 3 ? s[0] : 1, T = s.size() == 3 ? s[1] : s.at(0);
  const std::size_t C = std::size_t(o_.d_model()), F = std::size_t(o_.dim_feedforward());
  return kernels::mha_forward_macs(B, T, T, C) + 2 * kernels::linear_forward_macs(B * T, C, F);
}

}  // namespace attnlab::nn
