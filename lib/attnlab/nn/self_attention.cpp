#include "attnlab/nn/self_attention.hpp"

#include <stdexcept>

#include "kernels/attention_cache.hpp"
#include "kernels/cost.hpp"

namespace attnlab::nn {

namespace {
constexpr const char* kStep = "MultiheadSelfAttention::step";

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

MultiheadSelfAttention::MultiheadSelfAttention(const MultiheadSelfAttentionOptions& o, Generator& gen,
                                               const Scope& scope)
    : Module(scope),
      options_(o),
      attn_(MultiheadAttentionOptions(o.embed_dim(), o.num_heads()).dropout(o.dropout()).bias(o.bias()).batch_first(true),
            gen, {shared_store(), prefix()}) {
  adopt(attn_);
}

Tensor<3> MultiheadSelfAttention::forward(const Tensor<3>& x) {
  attn_.train(is_training());
  check_shape("MultiheadSelfAttention::forward", "x", shape_of(x), {-1, -1, options_.embed_dim()}, {"B", "T"});
  return attn_.forward(x, x, x, {.need_weights = false, .is_causal = options_.causal()}).attn_output;
}

Tensor<2> MultiheadSelfAttention::forward(const Tensor<2>& x) {
  check_shape("MultiheadSelfAttention::forward", "x", shape_of(x), {-1, options_.embed_dim()}, {"T"});
  return unbatched(forward(batched(x)));
}

Tensor<3> MultiheadSelfAttention::backward(const Tensor<3>& grad_output, const Tensor<3>& x) {
  return attn_.backward(grad_output, x, x, x).query;  // one input: the sum of the three gradients
}

Tensor<2> MultiheadSelfAttention::backward(const Tensor<2>& grad_output, const Tensor<2>& x) {
  check_shape("MultiheadSelfAttention::backward", "grad_output", shape_of(grad_output),
              {long(x.shape()[0]), long(x.shape()[1])});
  return unbatched(backward(batched(grad_output), batched(x)));
}

Cache MultiheadSelfAttention::init_cache(const CacheOptions& o) const {
  Cache cache(o);
  add_to_cache(cache);
  return cache;
}

void MultiheadSelfAttention::add_to_cache(Cache& cache) const {
  if (!options_.causal())
    throw std::logic_error("MultiheadSelfAttention: init_cache needs causal=true; a non-causal layer attends to "
                           "steps a stream has not seen yet");
  cache.add_key_values(options_.embed_dim());
}

void MultiheadSelfAttention::step_rows(float* out, const float* x, Cache& cache, StepCursor& cursor) {
  const int C = options_.embed_dim(), H = options_.num_heads();
  cache.check_room(kStep);
  Cache::KeyValues& kv = cache.next_key_values(cursor, C, kStep);
  const kernels::KvCacheDims d{.B = cache.batch(), .C = C, .H = H, .L = cache.max_len()};
  const float* w = attn_.in_proj_weight().data();
  const float* bias = options_.bias() ? attn_.in_proj_bias().data() : nullptr;
  const kernels::MhaParams<float> p = kernels::mha_packed<float>(w, bias, attn_.out_proj_weight().data(),
                                               options_.bias() ? attn_.out_proj_bias().data() : nullptr, C);
  kernels::attention_step(out, cache.scratch(kernels::attention_step_scratch_size(d)), kv.keys.data(), kv.values.data(),
                 cache.length(), x, p, d);
}

Tensor<1> MultiheadSelfAttention::step(const Tensor<1>& x_t, Cache& cache) {
  cache.check_step_input(kStep, shape_of(x_t), options_.embed_dim());
  Tensor<1> out = Tensor<1>::from_shape(x_t.shape());
  StepCursor cursor;
  step_rows(out.data(), x_t.data(), cache, cursor);
  cache.advance();
  return out;
}

Tensor<2> MultiheadSelfAttention::step(const Tensor<2>& x_t, Cache& cache) {
  cache.check_step_input(kStep, shape_of(x_t), options_.embed_dim());
  Tensor<2> out = Tensor<2>::from_shape(x_t.shape());
  StepCursor cursor;
  step_rows(out.data(), x_t.data(), cache, cursor);
  cache.advance();
  return out;
}

std::size_t MultiheadSelfAttention::forward_macs(const std::vector<std::size_t>& s) const {
  const std::size_t B = s.size() == 3 ? s[0] : 1, T = s.size() == 3 ? s[1] : s.at(0);
  return kernels::mha_forward_macs(B, T, T, std::size_t(options_.embed_dim()));
}

}  // namespace attnlab::nn
