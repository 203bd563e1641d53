#include "models/transformer_seq2seq.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "data/translation.hpp"
#include "kernels/embedding.hpp"
#include "kernels/layer_norm.hpp"
#include "kernels/linear.hpp"
#include "kernels/masked_cross_entropy.hpp"
#include "kernels/multihead_attention.hpp"
#include "tensor/row_ops.hpp"

namespace attnlab::models {

namespace {

std::size_t sz(long long a) { return static_cast<std::size_t>(a); }

constexpr int kBlockTensors = 12;  // pre_norm_block_param_specs
constexpr int kCrossTensors = 6;   // cross_norm.{weight,bias}, cross.{in_proj_weight,in_proj_bias,out_proj.*}

void check_config(const TransformerSeq2SeqConfig& c, int max_batch, int max_src) {
  if (c.vocab < data::kFirstWord + 1 || c.d_model < 1 || c.n_heads < 1 || c.ff < 1 || c.n_layers < 1 ||
      max_batch < 1 || max_src < 1)
    throw std::invalid_argument("TransformerSeq2Seq: sizes must be >= 1 (vocab > 3), got vocab=" +
                                std::to_string(c.vocab) + " d_model=" + std::to_string(c.d_model) +
                                " n_heads=" + std::to_string(c.n_heads) + " ff=" + std::to_string(c.ff) +
                                " n_layers=" + std::to_string(c.n_layers));
  if (c.d_model % c.n_heads != 0)
    throw std::invalid_argument("TransformerSeq2Seq: n_heads=" + std::to_string(c.n_heads) +
                                " does not divide d_model=" + std::to_string(c.d_model));
  if (c.positions < max_src + 1)
    throw std::invalid_argument("TransformerSeq2Seq: positions=" + std::to_string(c.positions) +
                                " is fewer than the longest target (" + std::to_string(max_src + 1) + ")");
}

}  // namespace

std::size_t TransformerSeq2Seq::parameter_count(const TransformerSeq2SeqConfig& c) {
  const std::size_t V = sz(c.vocab), C = sz(c.d_model), P = sz(c.positions), L = sz(c.n_layers);
  const std::size_t cross = 2 * C + 4 * C * C + 4 * C;
  return 2 * (V * C + P * C) + L * kernels::pre_norm_block_param_count(c.d_model, c.ff) + 2 * C +
         L * (kernels::pre_norm_block_param_count(c.d_model, c.ff) + cross) + 2 * C + V * C + V;
}

std::size_t TransformerSeq2Seq::memory_bytes(const TransformerSeq2SeqConfig& c, int max_batch, int max_src) {
  const std::size_t Bm = sz(max_batch), S = sz(max_src), T = S + 1, C = sz(c.d_model), V = sz(c.vocab),
                    L = sz(c.n_layers);
  const kernels::MhaDims cd = kernels::mha_dims(max_batch, max_src + 1, max_src, c.d_model, c.n_heads);
  const std::size_t BS = Bm * S, BT = Bm * T;
  std::size_t floats = 2 * parameter_count(c);
  floats += (L + 1) * BS * C + BS * C + 2 * BS;                                 // enc_x, mem and its stats
  floats += (L + 1) * BT * C + L * (3 * BT * C + 2 * BT + kernels::mha_cache_size(cd));  // dec_y, u, h, a, cache
  floats += BT * C + 2 * BT + 3 * BT * V;                                       // hd, logits, probs, dlogits
  floats += 3 * BT * C + 3 * BS * C + kernels::mha_scratch_size(cd);                 // backward
  const std::size_t ws = L * (kernels::PreNormWorkspace<float>::bytes(max_batch, max_src, c.d_model, c.n_heads, c.ff) +
                              kernels::PreNormWorkspace<float>::bytes(max_batch, max_src + 1, c.d_model, c.n_heads, c.ff));
  return floats * sizeof(float) + ws + BS + 2 * BT * sizeof(std::int32_t);
}

TransformerSeq2Seq::TransformerSeq2Seq(const TransformerSeq2SeqConfig& cfg, random::Generator& init, int max_batch,
                                       int max_src)
    : cfg_(cfg), max_batch_(max_batch), max_src_(max_src) {
  check_config(cfg, max_batch, max_src);
  const int V = cfg.vocab, C = cfg.d_model, P = cfg.positions, F = cfg.ff, L = cfg.n_layers;
  // registration order of the twin's __init__
  src_emb_ = params.add("src_emb.weight", {V, C});
  src_pos_ = params.add("src_pos.weight", {P, C});
  for (int k = 0; k < L; ++k) {
    const std::string prefix = "encoder." + std::to_string(k) + ".";
    for (const auto& s : kernels::pre_norm_block_param_specs(C, F)) params.add(prefix + s.name, s.shape);
    enc_block_.push_back(params.info().size() - kBlockTensors);
  }
  enc_norm_w_ = params.add("enc_norm.weight", {C});
  enc_norm_b_ = params.add("enc_norm.bias", {C});
  tgt_emb_ = params.add("tgt_emb.weight", {V, C});
  tgt_pos_ = params.add("tgt_pos.weight", {P, C});
  for (int k = 0; k < L; ++k) {
    const std::string prefix = "decoder." + std::to_string(k) + ".";
    for (const auto& s : kernels::pre_norm_block_param_specs(C, F)) params.add(prefix + "block." + s.name, s.shape);
    dec_block_.push_back(params.info().size() - kBlockTensors);
    params.add(prefix + "cross_norm.weight", {C});
    params.add(prefix + "cross_norm.bias", {C});
    params.add(prefix + "cross.in_proj_weight", {3 * C, C});
    params.add(prefix + "cross.in_proj_bias", {3 * C});
    params.add(prefix + "cross.out_proj.weight", {C, C});
    params.add(prefix + "cross.out_proj.bias", {C});
    cross_.push_back(params.info().size() - kCrossTensors);
  }
  dec_norm_w_ = params.add("dec_norm.weight", {C});
  dec_norm_b_ = params.add("dec_norm.bias", {C});
  out_w_ = params.add("out.weight", {V, C});
  out_b_ = params.add("out.bias", {V});
  params.allocate();

  // torch.manual_seed(seed); Transformer(...): each module's reset_parameters in turn
  kernels::embedding_init(init, params.value(src_emb_), V, C);
  kernels::embedding_init(init, params.value(src_pos_), P, C);
  for (int k = 0; k < L; ++k) kernels::pre_norm_block_init(init, block(enc_block_[k], false), C, F);
  kernels::layer_norm_init(params.value(enc_norm_w_), params.value(enc_norm_b_), C);
  kernels::embedding_init(init, params.value(tgt_emb_), V, C);
  kernels::embedding_init(init, params.value(tgt_pos_), P, C);
  for (int k = 0; k < L; ++k) {
    kernels::pre_norm_block_init(init, block(dec_block_[k], false), C, F);
    const std::size_t c0 = cross_[k];
    kernels::layer_norm_init(params.value(c0), params.value(c0 + 1), C);
    kernels::multihead_attention_init(init, params.value(c0 + 2), params.value(c0 + 3), params.value(c0 + 4),
                                 params.value(c0 + 5), C);
  }
  kernels::layer_norm_init(params.value(dec_norm_w_), params.value(dec_norm_b_), C);
  kernels::linear_init(init, params.value(out_w_), params.value(out_b_), C, V);

  const std::size_t Bm = sz(max_batch), S = sz(max_src), T = S + 1, BS = Bm * S, BT = Bm * T;
  const kernels::MhaDims cd = kernels::mha_dims(max_batch, max_src + 1, max_src, C, cfg.n_heads);
  for (int k = 0; k < L; ++k) {
    enc_ws_.emplace_back(max_batch, max_src, C, cfg.n_heads, F);
    dec_ws_.emplace_back(max_batch, max_src + 1, C, cfg.n_heads, F);
  }
  enc_x_.assign(sz(L) + 1, std::vector<float>(BS * C));
  dec_y_.assign(sz(L) + 1, std::vector<float>(BT * C));
  dec_u_.assign(sz(L), std::vector<float>(BT * C));
  cross_h_.assign(sz(L), std::vector<float>(BT * C));
  cross_a_.assign(sz(L), std::vector<float>(BT * C));
  cross_mean_.assign(sz(L), std::vector<float>(BT));
  cross_rstd_.assign(sz(L), std::vector<float>(BT));
  cross_cache_.assign(sz(L), std::vector<float>(kernels::mha_cache_size(cd)));
  mem_.resize(BS * C);
  mem_mean_.resize(BS);
  mem_rstd_.resize(BS);
  hd_.resize(BT * C);
  hd_mean_.resize(BT);
  hd_rstd_.resize(BT);
  logits_.resize(BT * V);
  probs_.resize(BT * V);
  dlogits_.resize(BT * V);
  d_y_.resize(BT * C);
  d_u_.resize(BT * C);
  d_h_.resize(BT * C);
  d_mem_.resize(BS * C);
  d_x_.resize(BS * C);
  d_xn_.resize(BS * C);
  cross_scratch_.resize(kernels::mha_scratch_size(cd));
  pad_.resize(BS);
  ids_.resize(BT);
  labels_.resize(BT);
}

kernels::PreNormTensors<float> TransformerSeq2Seq::block(std::size_t first, bool grad) {
  float* p[kBlockTensors];
  for (int k = 0; k < kBlockTensors; ++k) p[k] = grad ? params.grad(first + k) : params.value(first + k);
  return {p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]};
}

void TransformerSeq2Seq::encode(const std::int32_t* src, const std::int32_t* lengths, int B, int S) {
  const int V = cfg_.vocab, C = cfg_.d_model;
  if (B < 1 || B > max_batch_ || S < 1 || S > max_src_)
    throw std::invalid_argument("TransformerSeq2Seq: a batch of " + std::to_string(B) + " x " + std::to_string(S) +
                                " does not fit the buffers (" + std::to_string(max_batch_) + " x " +
                                std::to_string(max_src_) + ")");
  for (int b = 0; b < B; ++b) {
    if (lengths[b] < 1 || lengths[b] > S)
      throw std::invalid_argument("TransformerSeq2Seq: lengths[" + std::to_string(b) + "]=" +
                                  std::to_string(lengths[b]) + " is outside [1, " + std::to_string(S) + "]");
    for (int j = 0; j < S; ++j) pad_[sz(b) * S + j] = j >= lengths[b] ? 1 : 0;
  }
  kernels::embedding_forward(enc_x_[0].data(), src, params.value(src_emb_), B * S, V, C);
  kernels::position_embedding_forward(enc_x_[0].data(), params.value(src_pos_), B, S, C, cfg_.positions);
  const kernels::BlockDims d{.B = B, .T = S, .C = C, .H = cfg_.n_heads, .F = cfg_.ff, .key_padding = pad_.data()};
  for (int k = 0; k < cfg_.n_layers; ++k)
    kernels::pre_norm_block_forward(enc_x_[k + 1].data(), enc_ws_[k], enc_x_[k].data(), block(enc_block_[k], false), d,
                              nullptr);
  kernels::layer_norm_forward(mem_.data(), mem_mean_.data(), mem_rstd_.data(), enc_x_[cfg_.n_layers].data(),
                         params.value(enc_norm_w_), params.value(enc_norm_b_), B * S, C);
}

void TransformerSeq2Seq::decode(const std::int32_t* ids, int B, int S, int T, float* weights) {
  const int V = cfg_.vocab, C = cfg_.d_model, L = cfg_.n_layers;
  const std::size_t N = sz(B) * T;
  kernels::embedding_forward(dec_y_[0].data(), ids, params.value(tgt_emb_), B * T, V, C);
  kernels::position_embedding_forward(dec_y_[0].data(), params.value(tgt_pos_), B, T, C, cfg_.positions);
  const kernels::BlockDims d{.B = B, .T = T, .C = C, .H = cfg_.n_heads, .F = cfg_.ff, .causal = true};
  const kernels::MhaDims cd = kernels::mha_dims(B, T, S, C, cfg_.n_heads);
  kernels::MhaMasks<float> masks;
  masks.key_padding = pad_.data();
  for (int k = 0; k < L; ++k) {
    kernels::pre_norm_block_forward(dec_u_[k].data(), dec_ws_[k], dec_y_[k].data(), block(dec_block_[k], false), d,
                              nullptr);
    const std::size_t c0 = cross_[k];
    kernels::layer_norm_forward(cross_h_[k].data(), cross_mean_[k].data(), cross_rstd_[k].data(), dec_u_[k].data(),
                           params.value(c0), params.value(c0 + 1), B * T, C);
    const bool want = weights != nullptr && k + 1 == L;
    kernels::multihead_attention_forward<float>(cross_a_[k].data(), want ? weights : nullptr,
                                           want ? kernels::MhaWeights::averaged : kernels::MhaWeights::none,
                                           cross_cache_[k].data(), cross_h_[k].data(), mem_.data(), mem_.data(), masks,
                                           {}, params.value(c0 + 2), params.value(c0 + 3), params.value(c0 + 4),
                                           params.value(c0 + 5), cd);
    for (std::size_t i = 0; i < N * C; ++i) dec_y_[k + 1][i] = dec_u_[k][i] + cross_a_[k][i];
  }
  kernels::layer_norm_forward(hd_.data(), hd_mean_.data(), hd_rstd_.data(), dec_y_[L].data(), params.value(dec_norm_w_),
                         params.value(dec_norm_b_), B * T, C);
  kernels::linear_forward(logits_.data(), hd_.data(), params.value(out_w_), params.value(out_b_), B * T, C, V);
}

void TransformerSeq2Seq::backward(const std::int32_t* src, const std::int32_t* ids, int B, int S, int T) {
  const int V = cfg_.vocab, C = cfg_.d_model, L = cfg_.n_layers;
  const std::size_t NT = sz(B) * T * C, NS = sz(B) * S * C;
  std::fill_n(d_h_.begin(), NT, 0.0f);
  kernels::linear_backward(d_h_.data(), params.grad(out_w_), params.grad(out_b_), dlogits_.data(), hd_.data(),
                      params.value(out_w_), B * T, C, V);
  std::fill_n(d_y_.begin(), NT, 0.0f);
  kernels::layer_norm_backward(d_y_.data(), params.grad(dec_norm_w_), params.grad(dec_norm_b_), d_h_.data(),
                          hd_mean_.data(), hd_rstd_.data(), dec_y_[L].data(), params.value(dec_norm_w_), B * T, C);
  std::fill_n(d_mem_.begin(), NS, 0.0f);
  const kernels::BlockDims d{.B = B, .T = T, .C = C, .H = cfg_.n_heads, .F = cfg_.ff, .causal = true};
  const kernels::MhaDims cd = kernels::mha_dims(B, T, S, C, cfg_.n_heads);
  for (int k = L - 1; k >= 0; --k) {
    const std::size_t c0 = cross_[k];
    // y_{k+1} = u + a: both get d_y
    std::copy_n(d_y_.begin(), NT, d_u_.begin());
    std::fill_n(d_h_.begin(), NT, 0.0f);
    kernels::multihead_attention_backward<float>(d_h_.data(), d_mem_.data(), d_mem_.data(), params.grad(c0 + 2),
                                            params.grad(c0 + 3), params.grad(c0 + 4), params.grad(c0 + 5),
                                            cross_scratch_.data(), d_y_.data(), cross_cache_[k].data(),
                                            cross_h_[k].data(), mem_.data(), mem_.data(), {}, params.value(c0 + 2),
                                            params.value(c0 + 4), cd);
    kernels::layer_norm_backward(d_u_.data(), params.grad(c0), params.grad(c0 + 1), d_h_.data(), cross_mean_[k].data(),
                            cross_rstd_[k].data(), dec_u_[k].data(), params.value(c0), B * T, C);
    std::fill_n(d_y_.begin(), NT, 0.0f);
    kernels::pre_norm_block_backward(d_y_.data(), block(dec_block_[k], true), dec_ws_[k], d_u_.data(), dec_y_[k].data(),
                               block(dec_block_[k], false), d);
  }
  kernels::embedding_backward(params.grad(tgt_emb_), d_y_.data(), ids, B * T, V, C);
  kernels::position_embedding_backward(params.grad(tgt_pos_), d_y_.data(), B, T, C, cfg_.positions);
  std::fill_n(d_x_.begin(), NS, 0.0f);
  kernels::layer_norm_backward(d_x_.data(), params.grad(enc_norm_w_), params.grad(enc_norm_b_), d_mem_.data(),
                          mem_mean_.data(), mem_rstd_.data(), enc_x_[L].data(), params.value(enc_norm_w_), B * S, C);
  const kernels::BlockDims e{.B = B, .T = S, .C = C, .H = cfg_.n_heads, .F = cfg_.ff, .key_padding = pad_.data()};
  for (int k = L - 1; k >= 0; --k) {
    std::fill_n(d_xn_.begin(), NS, 0.0f);
    kernels::pre_norm_block_backward(d_xn_.data(), block(enc_block_[k], true), enc_ws_[k], d_x_.data(), enc_x_[k].data(),
                               block(enc_block_[k], false), e);
    std::swap(d_x_, d_xn_);
  }
  kernels::embedding_backward(params.grad(src_emb_), d_x_.data(), src, B * S, V, C);
  kernels::position_embedding_backward(params.grad(src_pos_), d_x_.data(), B, S, C, cfg_.positions);
}

float TransformerSeq2Seq::train_step(const Seq2SeqBatch& batch, double teacher_forcing, random::Generator&) {
  if (teacher_forcing != 1.0)
    throw std::invalid_argument("TransformerSeq2Seq: trains with teacher forcing 1 only (its decoder reads the "
                                "whole reference at once), got " + std::to_string(teacher_forcing));
  const int B = batch.B, S = batch.S, T = S + 1, V = cfg_.vocab;
  encode(batch.src, batch.lengths, B, S);
  decode(batch.tgt_in, B, S, T, nullptr);
  const int N = B * T;
  int counted = 0;
  const float loss = kernels::masked_cross_entropy_forward(probs_.data(), logits_.data(), batch.tgt_out, N, V,
                                                      data::kPad, &counted);
  std::fill_n(dlogits_.begin(), sz(N) * V, 0.0f);
  if (counted > 0)
    kernels::masked_cross_entropy_backward(dlogits_.data(), 1.0f, probs_.data(), batch.tgt_out, N, V, data::kPad);
  backward(batch.src, batch.tgt_in, B, S, T);
  return loss;
}

void TransformerSeq2Seq::logits(const Seq2SeqBatch& batch, float* out) {
  const int B = batch.B, S = batch.S, T = S + 1;
  encode(batch.src, batch.lengths, B, S);
  decode(batch.tgt_in, B, S, T, nullptr);
  std::copy_n(logits_.begin(), sz(B) * T * cfg_.vocab, out);
}

void TransformerSeq2Seq::greedy(const std::int32_t* src, const std::int32_t* lengths, int B, int S, int steps,
                                std::int32_t* pred, float* weights) {
  if (steps < 1 || steps > max_src_ + 1)
    throw std::invalid_argument("TransformerSeq2Seq::greedy: steps must be in [1, " + std::to_string(max_src_ + 1) +
                                "], got " + std::to_string(steps));
  const int V = cfg_.vocab;
  encode(src, lengths, B, S);
  for (int t = 0; t < steps; ++t) {
    const int T = t + 1;  // the prefix BOS, pred[0..t-1], as (B, T)
    for (int b = 0; b < B; ++b) {
      ids_[sz(b) * T] = data::kBos;
      for (int i = 1; i < T; ++i) ids_[sz(b) * T + i] = pred[sz(b) * steps + i - 1];
    }
    decode(ids_.data(), B, S, T, T == steps ? weights : nullptr);
    for (int b = 0; b < B; ++b) pred[sz(b) * steps + t] = tensor::argmax(logits_.data() + (sz(b) * T + t) * V, sz(V));
  }
}

}  // namespace attnlab::models
