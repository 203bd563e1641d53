#include "models/attention_classifier.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/replica.hpp"
#include "kernels/cost.hpp"
#include "kernels/cross_entropy.hpp"
#include "kernels/embedding.hpp"
#include "kernels/layer_norm.hpp"
#include "kernels/linear.hpp"
#include "kernels/mean_over_time.hpp"

namespace attnlab::models {

std::size_t AttentionClassifier::parameter_count(const AttentionClassifierConfig& cfg) {
  const std::size_t C = cfg.d_model, K = cfg.n_classes;
  return (cfg.vocab + cfg.max_len) * C + kernels::mha_parameter_count(cfg.d_model) + 2 * C + K * C + K;
}

std::size_t AttentionClassifier::memory_bytes(const AttentionClassifierConfig& cfg, int max_batch, int length) {
  const std::size_t C = cfg.d_model, K = cfg.n_classes, B = max_batch, T = length;
  const std::size_t params = parameter_count(cfg);
  const kernels::MhaDims d = kernels::mha_dims(max_batch, length, length, cfg.d_model, cfg.n_heads);
  const std::size_t floats = 2 * params                  // values and gradients
                             + 7 * B * T * C + 2 * B * T  // h, a, r, n, dn, dr, dh; mean, rstd
                             + 2 * B * C + 3 * B * K      // pooled, dpooled; logits, probs, dlogits
                             + kernels::mha_cache_size(d) + kernels::mha_scratch_size(d);
  return floats * sizeof(float);
}

AttentionClassifier::AttentionClassifier(const AttentionClassifierConfig& cfg, random::Generator& init,
                                         int max_batch, int length)
    : cfg_(cfg), max_batch_(max_batch), T_(length) {
  const int C = cfg.d_model, K = cfg.n_classes;
  kernels::mha_dims(1, length, length, C, cfg.n_heads);  // throws when heads do not divide d_model
  if (length > cfg.max_len)
    throw std::invalid_argument("sequence length " + std::to_string(length) + " exceeds the position table (" +
                                std::to_string(cfg.max_len) + ")");
  if (max_batch < 1) throw std::invalid_argument("max_batch must be positive");
  tok_ = params.add("tok.weight", {cfg.vocab, C});
  pos_ = params.add("pos.weight", {cfg.max_len, C});
  in_w_ = params.add("attn.in_proj_weight", {3 * C, C});
  in_b_ = params.add("attn.in_proj_bias", {3 * C});
  out_w_ = params.add("attn.out_proj.weight", {C, C});
  out_b_ = params.add("attn.out_proj.bias", {C});
  norm_w_ = params.add("norm.weight", {C});
  norm_b_ = params.add("norm.bias", {C});
  head_w_ = params.add("head.weight", {K, C});
  head_b_ = params.add("head.bias", {K});
  params.allocate();

  kernels::embedding_init(init, params.value(tok_), cfg.vocab, C);
  kernels::embedding_init(init, params.value(pos_), cfg.max_len, C);
  kernels::multihead_attention_init(init, params.value(in_w_), params.value(in_b_), params.value(out_w_),
                               params.value(out_b_), C);
  kernels::layer_norm_init(params.value(norm_w_), params.value(norm_b_), C);
  kernels::linear_init(init, params.value(head_w_), params.value(head_b_), C, K);

  const std::size_t BTC = static_cast<std::size_t>(max_batch) * length * C;
  for (auto* v : {&h_, &a_, &r_, &n_, &dn_, &dr_, &dh_}) v->resize(BTC);
  mean_.resize(static_cast<std::size_t>(max_batch) * length);
  rstd_.resize(mean_.size());
  pooled_.resize(static_cast<std::size_t>(max_batch) * C);
  dpooled_.resize(pooled_.size());
  logits_.resize(static_cast<std::size_t>(max_batch) * K);
  probs_.resize(logits_.size());
  dlogits_.resize(logits_.size());
  const kernels::MhaDims d = kernels::mha_dims(max_batch, length, length, C, cfg.n_heads);
  mha_cache_.resize(kernels::mha_cache_size(d));
  mha_scratch_.resize(kernels::mha_scratch_size(d));
}

void AttentionClassifier::forward(const std::int32_t* tokens, int B, float* attn_weights) {
  if (B < 1 || B > max_batch_) throw std::invalid_argument("batch of " + std::to_string(B) + " does not fit");
  const int T = T_, C = cfg_.d_model, N = B * T;
  // h (B, T, C) = tok(x) [+ pos(arange(T))]
  kernels::embedding_forward(h_.data(), tokens, params.value(tok_), N, cfg_.vocab, C);
  if (cfg_.use_positions) kernels::position_embedding_forward(h_.data(), params.value(pos_), B, T, C, cfg_.max_len);
  // a (B, T, C) = MHA(h, h, h)
  const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, cfg_.n_heads);
  kernels::multihead_attention_forward<float>(
      a_.data(), attn_weights, attn_weights ? kernels::MhaWeights::averaged : kernels::MhaWeights::none, mha_cache_.data(),
      h_.data(), h_.data(), h_.data(), {}, {}, params.value(in_w_), params.value(in_b_), params.value(out_w_),
      params.value(out_b_), d);
  // r = h + a; n = LayerNorm(r)
  for (int i = 0; i < N * C; ++i) r_[i] = h_[i] + a_[i];
  kernels::layer_norm_forward(n_.data(), mean_.data(), rstd_.data(), r_.data(), params.value(norm_w_),
                         params.value(norm_b_), N, C);
  // pooled (B, C) = mean over T; logits (B, K) = head(pooled)
  kernels::mean_over_time_forward(pooled_.data(), n_.data(), B, T, C);
  kernels::linear_forward(logits_.data(), pooled_.data(), params.value(head_w_), params.value(head_b_), B, C,
                     cfg_.n_classes);
}

float AttentionClassifier::train_step(const std::int32_t* tokens, const std::int32_t* labels, int B,
                                      random::Generator&) {
  return train_step_drawn(tokens, labels, B);
}

float AttentionClassifier::train_step_drawn(const std::int32_t* tokens, const std::int32_t* labels, int B) {
  forward(tokens, B, nullptr);
  const int T = T_, C = cfg_.d_model, K = cfg_.n_classes, N = B * T;
  const float loss = kernels::cross_entropy_forward(probs_.data(), logits_.data(), labels, B, K);

  std::fill_n(dlogits_.begin(), B * K, 0.0f);
  std::fill_n(dpooled_.begin(), B * C, 0.0f);
  kernels::cross_entropy_backward(dlogits_.data(), 1.0f, probs_.data(), labels, B, K);
  kernels::linear_backward(dpooled_.data(), params.grad(head_w_), params.grad(head_b_), dlogits_.data(),
                      pooled_.data(), params.value(head_w_), B, C, K);
  // dn and dr are written, not added into (two 64 KB fills a step at the course's size)
  kernels::mean_over_time_backward(dn_.data(), dpooled_.data(), B, T, C, true);
  kernels::layer_norm_backward(dr_.data(), params.grad(norm_w_), params.grad(norm_b_), dn_.data(), mean_.data(),
                          rstd_.data(), r_.data(), params.value(norm_w_), N, C, true);
  // The residual passes dr straight to h; attention adds its three paths.
  std::copy_n(dr_.begin(), N * C, dh_.begin());
  const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, cfg_.n_heads);
  kernels::multihead_attention_backward<float>(dh_.data(), dh_.data(), dh_.data(), params.grad(in_w_),
                                          params.grad(in_b_), params.grad(out_w_), params.grad(out_b_),
                                          mha_scratch_.data(), dr_.data(), mha_cache_.data(), h_.data(), h_.data(),
                                          h_.data(), {}, params.value(in_w_), params.value(out_w_), d);
  kernels::embedding_backward(params.grad(tok_), dh_.data(), tokens, N, cfg_.vocab, C);
  if (cfg_.use_positions) kernels::position_embedding_backward(params.grad(pos_), dh_.data(), B, T, C, cfg_.max_len);
  return loss;
}

void AttentionClassifier::logits(const std::int32_t* tokens, int B, float* out) {
  forward(tokens, B, nullptr);
  std::copy_n(logits_.begin(), B * cfg_.n_classes, out);
}

void AttentionClassifier::attention_weights(const std::int32_t* tokens, int B, float* out) {
  forward(tokens, B, out);
}

}  // namespace attnlab::models

namespace attnlab::models {

std::size_t AttentionClassifier::forward_macs(int B) const {
  const std::size_t C = cfg_.d_model;
  return kernels::mha_forward_macs(B, T_, T_, C) + kernels::linear_forward_macs(B, C, cfg_.n_classes);
}

}  // namespace attnlab::models

namespace attnlab::models {

AttentionClassifier AttentionClassifier::replica(int max_batch) const {
  return make_replica<AttentionClassifier>(cfg_, params, max_batch, T_);
}

}  // namespace attnlab::models
