#include "models/recurrent_classifier.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/replica.hpp"
#include "kernels/cost.hpp"
#include "kernels/cross_entropy.hpp"
#include "kernels/embedded_input.hpp"
#include "kernels/embedding.hpp"
#include "kernels/gru.hpp"
#include "kernels/linear.hpp"
#include "kernels/lstm.hpp"
#include "kernels/recurrent_common.hpp"
#include "kernels/rnn.hpp"

namespace attnlab::models {

namespace {

int gates(Cell c) {
  return c == Cell::rnn ? kernels::kRnnGates : c == Cell::gru ? kernels::kGruGates : kernels::kLstmGates;
}

}  // namespace

Cell cell_from_name(const std::string& name) {
  if (name == "rnn") return Cell::rnn;
  if (name == "gru") return Cell::gru;
  if (name == "lstm") return Cell::lstm;
  throw std::invalid_argument("unknown recurrent cell \"" + name + "\"; expected rnn, gru or lstm");
}

std::size_t RecurrentClassifier::parameter_count(const RecurrentClassifierConfig& cfg) {
  const std::size_t E = cfg.embed, H = cfg.hidden_size, G = gates(cfg.cell), K = cfg.n_classes;
  return cfg.vocab * E + G * H * (E + H + 2) + K * H + K;
}

std::size_t RecurrentClassifier::memory_bytes(const RecurrentClassifierConfig& cfg, int max_batch, int length) {
  const std::size_t H = cfg.hidden_size, G = gates(cfg.cell), K = cfg.n_classes;
  const std::size_t B = max_batch, T = length;
  const std::size_t params = parameter_count(cfg);
  std::size_t cell = 0;
  switch (cfg.cell) {
    case Cell::rnn: cell = kernels::rnn_cache_size(max_batch, length, cfg.hidden_size) +
                           kernels::rnn_scratch_size(max_batch, length, cfg.hidden_size); break;
    case Cell::gru: cell = kernels::gru_cache_size(max_batch, length, cfg.hidden_size) +
                           kernels::gru_scratch_size(max_batch, length, cfg.hidden_size); break;
    case Cell::lstm: cell = kernels::lstm_cache_size(max_batch, length, cfg.hidden_size) +
                            kernels::lstm_scratch_size(max_batch, length, cfg.hidden_size); break;
  }
  const std::size_t floats = 2 * params + cfg.vocab * G * H + 2 * B * T * H  // table; out, dout
                             + 2 * B * H + 3 * B * K + cell;                   // last, dlast; logits, probs, dlogits
  return floats * sizeof(float);
}

RecurrentClassifier::RecurrentClassifier(const RecurrentClassifierConfig& cfg, random::Generator& init,
                                         int max_batch, int length)
    : cfg_(cfg), max_batch_(max_batch), T_(length) {
  const int E = cfg.embed, H = cfg.hidden_size, G = gates(cfg.cell), K = cfg.n_classes;
  kernels::check_recurrent_dims("RecurrentClassifier", max_batch, length, E, H);
  emb_ = params.add("emb.weight", {cfg.vocab, E});
  w_ih_ = params.add("rnn.weight_ih_l0", {G * H, E});
  w_hh_ = params.add("rnn.weight_hh_l0", {G * H, H});
  b_ih_ = params.add("rnn.bias_ih_l0", {G * H});
  b_hh_ = params.add("rnn.bias_hh_l0", {G * H});
  head_w_ = params.add("head.weight", {K, H});
  head_b_ = params.add("head.bias", {K});
  params.allocate();

  kernels::embedding_init(init, params.value(emb_), cfg.vocab, E);
  kernels::recurrent_init(init, params.value(w_ih_), params.value(w_hh_), params.value(b_ih_), params.value(b_hh_), G,
                     E, H);
  kernels::linear_init(init, params.value(head_w_), params.value(head_b_), H, K);

  const std::size_t BT = static_cast<std::size_t>(max_batch) * length;
  table_.resize(kernels::embedded_table_size(cfg.vocab, G, H));
  out_.resize(BT * H);
  dout_.resize(BT * H);
  last_.resize(static_cast<std::size_t>(max_batch) * H);
  dlast_.resize(last_.size());
  logits_.resize(static_cast<std::size_t>(max_batch) * K);
  probs_.resize(logits_.size());
  dlogits_.resize(logits_.size());
  switch (cfg.cell) {
    case Cell::rnn:
      cache_.resize(kernels::rnn_cache_size(max_batch, length, H));
      scratch_.resize(kernels::rnn_scratch_size(max_batch, length, H));
      break;
    case Cell::gru:
      cache_.resize(kernels::gru_cache_size(max_batch, length, H));
      scratch_.resize(kernels::gru_scratch_size(max_batch, length, H));
      break;
    case Cell::lstm:
      cache_.resize(kernels::lstm_cache_size(max_batch, length, H));
      scratch_.resize(kernels::lstm_scratch_size(max_batch, length, H));
      break;
  }
}

kernels::EmbeddedInput<float> RecurrentClassifier::embedded(const std::int32_t* tokens) {
  return {.ids = tokens, .weight = params.value(emb_), .vocab = cfg_.vocab, .table = table_.data()};
}

void RecurrentClassifier::forward(const std::int32_t* tokens, int B) {
  if (B < 1 || B > max_batch_) throw std::invalid_argument("batch of " + std::to_string(B) + " does not fit");
  const int T = T_, E = cfg_.embed, H = cfg_.hidden_size;
  // out (B, T, H) = rnn(emb(tokens)), the table folded into the input projection
  const kernels::EmbeddedInput<float> x = embedded(tokens);
  const float *w_ih = params.value(w_ih_), *w_hh = params.value(w_hh_);
  const float *b_ih = params.value(b_ih_), *b_hh = params.value(b_hh_);
  switch (cfg_.cell) {
    case Cell::rnn: kernels::rnn_forward_embedded(out_.data(), cache_.data(), x, w_ih, w_hh, b_ih, b_hh, B, T, E, H); break;
    case Cell::gru: kernels::gru_forward_embedded(out_.data(), cache_.data(), x, w_ih, w_hh, b_ih, b_hh, B, T, E, H); break;
    case Cell::lstm:
      kernels::lstm_forward_embedded(out_.data(), cache_.data(), x, w_ih, w_hh, b_ih, b_hh, B, T, E, H);
      break;
  }
  // last (B, H) = out[:, -1, :]; logits (B, K) = head(last)
  for (int b = 0; b < B; ++b)
    std::copy_n(out_.begin() + (static_cast<std::size_t>(b) * T + T - 1) * H, H, last_.begin() + b * H);
  kernels::linear_forward(logits_.data(), last_.data(), params.value(head_w_), params.value(head_b_), B, H,
                     cfg_.n_classes);
}

float RecurrentClassifier::train_step(const std::int32_t* tokens, const std::int32_t* labels, int B,
                                      random::Generator&) {
  return train_step_drawn(tokens, labels, B);
}

float RecurrentClassifier::train_step_drawn(const std::int32_t* tokens, const std::int32_t* labels, int B) {
  forward(tokens, B);
  const int T = T_, E = cfg_.embed, H = cfg_.hidden_size, K = cfg_.n_classes;
  const float loss = kernels::cross_entropy_forward(probs_.data(), logits_.data(), labels, B, K);
  std::fill_n(dlogits_.begin(), B * K, 0.0f);
  std::fill_n(dlast_.begin(), B * H, 0.0f);
  kernels::cross_entropy_backward(dlogits_.data(), 1.0f, probs_.data(), labels, B, K);
  kernels::linear_backward(dlast_.data(), params.grad(head_w_), params.grad(head_b_), dlogits_.data(), last_.data(),
                      params.value(head_w_), B, H, K);
  // Only the last step's output reaches the loss.
  std::fill_n(dout_.begin(), static_cast<std::size_t>(B) * T * H, 0.0f);
  for (int b = 0; b < B; ++b)
    std::copy_n(dlast_.begin() + b * H, H, dout_.begin() + (static_cast<std::size_t>(b) * T + T - 1) * H);
  const kernels::EmbeddedInput<float> x = embedded(tokens);
  const float *w_ih = params.value(w_ih_), *w_hh = params.value(w_hh_);
  float *demb = params.grad(emb_), *dw_ih = params.grad(w_ih_), *dw_hh = params.grad(w_hh_),
        *db_ih = params.grad(b_ih_), *db_hh = params.grad(b_hh_);
  switch (cfg_.cell) {
    case Cell::rnn:
      kernels::rnn_backward_embedded(demb, dw_ih, dw_hh, db_ih, db_hh, scratch_.data(), dout_.data(), cache_.data(), x,
                                w_ih, w_hh, B, T, E, H);
      break;
    case Cell::gru:
      kernels::gru_backward_embedded(demb, dw_ih, dw_hh, db_ih, db_hh, scratch_.data(), dout_.data(), cache_.data(), x,
                                w_ih, w_hh, B, T, E, H);
      break;
    case Cell::lstm:
      kernels::lstm_backward_embedded(demb, dw_ih, dw_hh, db_ih, db_hh, scratch_.data(), dout_.data(), cache_.data(), x,
                                 w_ih, w_hh, B, T, E, H);
      break;
  }
  return loss;
}

void RecurrentClassifier::logits(const std::int32_t* tokens, int B, float* out) {
  forward(tokens, B);
  std::copy_n(logits_.begin(), B * cfg_.n_classes, out);
}

}  // namespace attnlab::models

namespace attnlab::models {

std::size_t RecurrentClassifier::forward_macs(int B) const {
  return kernels::recurrent_forward_macs(B, T_, gates(cfg_.cell), cfg_.embed, cfg_.hidden_size) +
         kernels::linear_forward_macs(B, cfg_.hidden_size, cfg_.n_classes);
}

}  // namespace attnlab::models

namespace attnlab::models {

RecurrentClassifier RecurrentClassifier::replica(int max_batch) const {
  return make_replica<RecurrentClassifier>(cfg_, params, max_batch, T_);
}

}  // namespace attnlab::models
