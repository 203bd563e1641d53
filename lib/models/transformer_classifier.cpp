#include "models/transformer_classifier.hpp"

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

std::size_t TransformerClassifier::parameter_count(const TransformerClassifierConfig& cfg) {
  const std::size_t C = cfg.d_model, F = static_cast<std::size_t>(cfg.ff_mult) * C, K = cfg.n_classes;
  return (cfg.vocab + cfg.max_len) * C + cfg.n_blocks * kernels::pre_norm_block_param_count(cfg.d_model, static_cast<int>(F)) + 2 * C +
         K * C + K;
}

std::size_t TransformerClassifier::memory_bytes(const TransformerClassifierConfig& cfg, int max_batch,
                                                int length) {
  const std::size_t C = cfg.d_model, F = static_cast<std::size_t>(cfg.ff_mult) * C, K = cfg.n_classes;
  const std::size_t N = static_cast<std::size_t>(max_batch) * length, L = cfg.n_blocks;
  const std::size_t params = parameter_count(cfg);
  // hs_ (L + 1 of (N, C)) is filled from one more, freed before the buffers after it are made.
  const std::size_t floats = 2 * params + (L + 1) * N * C + 4 * N * C + 2 * N +
                             2 * static_cast<std::size_t>(max_batch) * C + 3 * static_cast<std::size_t>(max_batch) * K;
  return floats * sizeof(float) +
         L * kernels::PreNormWorkspace<float>::bytes(max_batch, length, cfg.d_model, cfg.n_heads, static_cast<int>(F)) +
         TokenPositionRows::bytes(cfg.vocab, length, cfg.d_model, max_batch);
}

TransformerClassifier::TransformerClassifier(const TransformerClassifierConfig& cfg, random::Generator& init,
                                             int max_batch, int length)
    : cfg_(cfg), max_batch_(max_batch), T_(length), first_rows_(cfg.vocab, length, cfg.d_model, max_batch) {
  const int C = cfg.d_model, F = cfg.ff_mult * cfg.d_model, K = cfg.n_classes;
  kernels::mha_dims(1, length, length, C, cfg.n_heads);  // throws when heads do not divide d_model
  if (length > cfg.max_len)
    throw std::invalid_argument("sequence length " + std::to_string(length) + " exceeds the position table (" +
                                std::to_string(cfg.max_len) + ")");
  if (max_batch < 1 || cfg.n_blocks < 1 || F < 1) throw std::invalid_argument("non-positive model size");
  tok_ = params.add("tok.weight", {cfg.vocab, C});
  pos_ = params.add("pos.weight", {cfg.max_len, C});
  for (int b = 0; b < cfg.n_blocks; ++b) {
    block_first_.push_back(params.info().size());
    for (const auto& p : kernels::pre_norm_block_param_specs(C, F))
      params.add("blocks." + std::to_string(b) + "." + p.name, p.shape);
  }
  norm_w_ = params.add("norm.weight", {C});
  norm_b_ = params.add("norm.bias", {C});
  head_w_ = params.add("head.weight", {K, C});
  head_b_ = params.add("head.bias", {K});
  params.allocate();

  kernels::embedding_init(init, params.value(tok_), cfg.vocab, C);
  kernels::embedding_init(init, params.value(pos_), cfg.max_len, C);
  for (int b = 0; b < cfg.n_blocks; ++b) kernels::pre_norm_block_init(init, tensors(b, false), C, F);
  kernels::layer_norm_init(params.value(norm_w_), params.value(norm_b_), C);
  kernels::linear_init(init, params.value(head_w_), params.value(head_b_), C, K);

  const std::size_t N = static_cast<std::size_t>(max_batch) * length;
  for (int b = 0; b < cfg.n_blocks; ++b) ws_.emplace_back(max_batch, length, C, cfg.n_heads, F);
  hs_.assign(cfg.n_blocks + 1, std::vector<float>(N * C));
  for (auto* v : {&n_, &dn_, &dh_a_, &dh_b_}) v->resize(N * C);
  mean_.resize(N);
  rstd_.resize(N);
  pooled_.resize(static_cast<std::size_t>(max_batch) * C);
  dpooled_.resize(pooled_.size());
  for (auto* v : {&logits_, &probs_, &dlogits_}) v->resize(static_cast<std::size_t>(max_batch) * K);
}

kernels::BlockDims TransformerClassifier::dims(int B) const {
  return {B, T_, cfg_.d_model, cfg_.n_heads, cfg_.ff_mult * cfg_.d_model, cfg_.dropout};
}

kernels::PreNormTensors<float> TransformerClassifier::tensors(std::size_t block, bool grads) {
  const std::size_t i = block_first_[block];
  auto p = [&](std::size_t k) { return grads ? params.grad(i + k) : params.value(i + k); };
  return {p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7), p(8), p(9), p(10), p(11)};
}

void TransformerClassifier::draw_step(random::Generator& g, int B) {
  for (int b = 0; b < cfg_.n_blocks; ++b) kernels::pre_norm_block_draw_masks(ws_[b], dims(B), g);
}

void TransformerClassifier::take_step_draws(const TransformerClassifier& from, int first, int b) {
  for (int k = 0; k < cfg_.n_blocks; ++k) kernels::pre_norm_block_take_masks(ws_[k], from.ws_[k], first, dims(b));
}

void TransformerClassifier::forward(const std::int32_t* tokens, int B, bool train) {
  if (B < 1 || B > max_batch_) throw std::invalid_argument("batch of " + std::to_string(B) + " does not fit");
  const int T = T_, C = cfg_.d_model, N = B * T;
  // h0 (B, T, C) = tok(x) + pos(arange(T))
  kernels::embedding_forward(hs_[0].data(), tokens, params.value(tok_), N, cfg_.vocab, C);
  kernels::position_embedding_forward(hs_[0].data(), params.value(pos_), B, T, C, cfg_.max_len);
  // block 0 reads at most vocab · T distinct rows
  kernels::DistinctRows<float> rows;
  if (first_rows_.enabled()) rows = first_rows_.group(tokens, B, params.value(tok_), params.value(pos_));
  const kernels::DistinctRows<float>* first = first_rows_.enabled() ? &rows : nullptr;
  for (int b = 0; b < cfg_.n_blocks; ++b) {
    const kernels::DistinctRows<float>* r = b == 0 ? first : nullptr;
    if (train)
      kernels::pre_norm_block_forward_drawn(hs_[b + 1].data(), ws_[b], hs_[b].data(), tensors(b, false), dims(B), r);
    else
      kernels::pre_norm_block_forward(hs_[b + 1].data(), ws_[b], hs_[b].data(), tensors(b, false), dims(B), nullptr, r);
  }
  // logits = head(mean_T(LN(h)))
  kernels::layer_norm_forward(n_.data(), mean_.data(), rstd_.data(), hs_[cfg_.n_blocks].data(), params.value(norm_w_),
                         params.value(norm_b_), N, C);
  kernels::mean_over_time_forward(pooled_.data(), n_.data(), B, T, C);
  kernels::linear_forward(logits_.data(), pooled_.data(), params.value(head_w_), params.value(head_b_), B, C,
                     cfg_.n_classes);
}

float TransformerClassifier::train_step(const std::int32_t* tokens, const std::int32_t* labels, int B,
                                        random::Generator& g) {
  draw_step(g, B);
  return train_step_drawn(tokens, labels, B);
}

float TransformerClassifier::train_step_drawn(const std::int32_t* tokens, const std::int32_t* labels, int B) {
  forward(tokens, B, true);
  const int T = T_, C = cfg_.d_model, K = cfg_.n_classes, N = B * T;
  const float loss = kernels::cross_entropy_forward(probs_.data(), logits_.data(), labels, B, K);
  std::fill_n(dlogits_.begin(), B * K, 0.0f);
  std::fill_n(dpooled_.begin(), B * C, 0.0f);
  std::fill_n(dn_.begin(), N * C, 0.0f);
  kernels::cross_entropy_backward(dlogits_.data(), 1.0f, probs_.data(), labels, B, K);
  kernels::linear_backward(dpooled_.data(), params.grad(head_w_), params.grad(head_b_), dlogits_.data(),
                      pooled_.data(), params.value(head_w_), B, C, K);
  kernels::mean_over_time_backward(dn_.data(), dpooled_.data(), B, T, C);
  // dh_a holds the gradient of the current block's output, dh_b receives its input's.
  std::fill_n(dh_a_.begin(), N * C, 0.0f);
  kernels::layer_norm_backward(dh_a_.data(), params.grad(norm_w_), params.grad(norm_b_), dn_.data(), mean_.data(),
                          rstd_.data(), hs_[cfg_.n_blocks].data(), params.value(norm_w_), N, C);
  const kernels::DistinctRows<float> rows = first_rows_.enabled() ? first_rows_.last() : kernels::DistinctRows<float>{};
  const kernels::DistinctRows<float>* first = first_rows_.enabled() ? &rows : nullptr;
  for (int b = cfg_.n_blocks - 1; b >= 0; --b) {
    std::fill_n(dh_b_.begin(), N * C, 0.0f);
    kernels::pre_norm_block_backward(dh_b_.data(), tensors(b, true), ws_[b], dh_a_.data(), hs_[b].data(),
                               tensors(b, false), dims(B), b == 0 ? first : nullptr);
    std::swap(dh_a_, dh_b_);
  }
  // block 0's input gradient: per row through the residual, per distinct pair through LN1
  kernels::embedding_backward(params.grad(tok_), dh_a_.data(), tokens, N, cfg_.vocab, C);
  kernels::position_embedding_backward(params.grad(pos_), dh_a_.data(), B, T, C, cfg_.max_len);
  if (first) first_rows_.add_gradients(params.grad(tok_), params.grad(pos_));
  return loss;
}

void TransformerClassifier::logits(const std::int32_t* tokens, int B, float* out) {
  forward(tokens, B, false);
  std::copy_n(logits_.begin(), B * cfg_.n_classes, out);
}

}  // namespace attnlab::models

namespace attnlab::models {

std::size_t TransformerClassifier::forward_macs(int B) const {
  const std::size_t C = cfg_.d_model, F = static_cast<std::size_t>(cfg_.ff_mult) * C, N = std::size_t(B) * T_;
  const std::size_t block = kernels::mha_forward_macs(B, T_, T_, C) + kernels::linear_forward_macs(N, C, F) +
                            kernels::linear_forward_macs(N, F, C);
  return cfg_.n_blocks * block + kernels::linear_forward_macs(B, C, cfg_.n_classes);
}

}  // namespace attnlab::models

namespace attnlab::models {

TransformerClassifier TransformerClassifier::replica(int max_batch) const {
  return make_replica<TransformerClassifier>(cfg_, params, max_batch, T_);
}

}  // namespace attnlab::models
