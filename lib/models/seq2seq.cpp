#include "models/seq2seq.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "data/translation.hpp"
#include "kernels/additive_attention.hpp"
#include "kernels/bidirectional_gru.hpp"
#include "kernels/dot_attention.hpp"
#include "kernels/embedding.hpp"
#include "kernels/gru.hpp"
#include "kernels/gru_cell.hpp"
#include "kernels/linear.hpp"
#include "kernels/masked_cross_entropy.hpp"
#include "kernels/recurrent_common.hpp"
#include "tensor/row_ops.hpp"

namespace attnlab::models {

Seq2SeqKind seq2seq_kind_from_name(const std::string& name) {
  if (name == "rnnenc") return Seq2SeqKind::rnnenc;
  if (name == "additive") return Seq2SeqKind::additive;
  if (name == "dot") return Seq2SeqKind::dot;
  throw std::invalid_argument("unknown encoder-decoder \"" + name + "\" (valid: rnnenc, additive, dot)");
}

namespace {

std::size_t sz(long long a) { return static_cast<std::size_t>(a); }

kernels::AdditiveDims additive_dims(int B, int S, int H, int A) {
  return {.B = B, .T = 1, .S = S, .Dq = H, .Dk = 2 * H, .A = A, .Dv = 2 * H};
}

}  // namespace

std::size_t Seq2Seq::parameter_count(const Seq2SeqConfig& cfg) {
  const std::size_t V = sz(cfg.vocab), E = sz(cfg.embed), H = sz(cfg.hidden), A = sz(cfg.attn), G = 3 * H;
  const bool bi = cfg.kind != Seq2SeqKind::rnnenc;
  const std::size_t dec_in = cfg.kind == Seq2SeqKind::additive ? E + 2 * H : E, feat = bi ? 3 * H : H;
  std::size_t n = 2 * V * E + (bi ? 2 : 1) * (G * E + G * H + 2 * G);  // embeddings, encoder
  if (bi) n += H * H + H;                                               // init
  if (cfg.kind == Seq2SeqKind::additive) n += A * H + A * 2 * H + A;    // W_a, U_a, v_a
  if (cfg.kind == Seq2SeqKind::dot) n += 2 * H * H;                     // W_a
  return n + G * dec_in + G * H + 2 * G + V * feat + V;                 // decoder cell, output layer
}

std::size_t Seq2Seq::memory_bytes(const Seq2SeqConfig& cfg, int max_batch, int max_src) {
  const std::size_t V = sz(cfg.vocab), E = sz(cfg.embed), H = sz(cfg.hidden), A = sz(cfg.attn);
  const bool bi = cfg.kind != Seq2SeqKind::rnnenc;
  const std::size_t enc_w = bi ? 2 * H : H, dec_in = cfg.kind == Seq2SeqKind::additive ? E + 2 * H : E,
                    feat = bi ? 3 * H : H;
  const std::size_t Bm = sz(max_batch), S = sz(max_src), T = S + 1, BS = Bm * S;
  std::size_t scratch = S;
  if (cfg.kind == Seq2SeqKind::additive) {
    const kernels::AdditiveDims d = {.B = max_batch, .T = 1, .S = max_src, .Dq = cfg.hidden, .Dk = 2 * cfg.hidden,
                                .A = cfg.attn, .Dv = 2 * cfg.hidden};
    scratch = std::max({scratch, kernels::additive_forward_scratch_size(d), kernels::additive_backward_scratch_size(d)});
  }
  const std::size_t floats =
      2 * parameter_count(cfg)                                   // values and gradients
      + 2 * BS * E + 2 * BS * enc_w                              // x_src, d_x_src, enc_out, d_enc_out
      + (bi ? kernels::bigru_cache_size(max_batch, max_src, cfg.embed, cfg.hidden)
            : kernels::gru_cache_size(max_batch, max_src, cfg.hidden)) +
      (bi ? kernels::bigru_scratch_size(max_batch, max_src, cfg.embed, cfg.hidden)
          : kernels::gru_scratch_size(max_batch, max_src, cfg.hidden)) +
      2 * BS * A + 3 * Bm * H + 2 * (T + 1) * Bm * H + T * Bm * E + Bm * E + T * Bm * dec_in + Bm * dec_in +
      T * kernels::gru_cell_cache_size(max_batch, cfg.hidden) + kernels::gru_cell_scratch_size(max_batch, cfg.hidden) +
      2 * T * Bm * 2 * H + T * Bm * S + 2 * Bm * 2 * H + T * Bm * feat + Bm * feat + 3 * T * Bm * V + scratch;
  return floats * sizeof(float) + BS + 2 * T * Bm * sizeof(std::int32_t);  // + pad_, ids_, labels_
}

std::size_t Seq2Seq::buffer_bytes() const {
  std::size_t f = 2 * params.count();
  for (const auto* v : {&x_src_, &enc_out_, &enc_cache_, &pk_, &init_in_, &init_pre_, &s_, &e_, &dec_x_,
                        &cell_cache_, &ctx_, &w_, &q_, &feat_buf_, &logits_, &probs_, &attn_scratch_, &d_x_src_,
                        &d_enc_out_, &enc_scratch_, &d_pk_, &d_init_, &dS_, &d_dec_x_, &de_, &dfeat_, &dctx_,
                        &dq_, &dlogits_, &cell_scratch_})
    f += v->size();
  return f * sizeof(float) + pad_.size() + (ids_.size() + labels_.size()) * sizeof(std::int32_t);
}

Seq2Seq::Seq2Seq(const Seq2SeqConfig& cfg, random::Generator& init, int max_batch, int max_src)
    : cfg_(cfg), max_batch_(max_batch), max_src_(max_src) {
  const int V = cfg.vocab, E = cfg.embed, H = cfg.hidden, A = cfg.attn, G = 3 * H;
  kernels::check_recurrent_dims("Seq2Seq", max_batch, max_src, E, H);
  if (V < data::kFirstWord + 1 || A < 1)
    throw std::invalid_argument("Seq2Seq: needs vocab > 3 and attn >= 1, got vocab=" + std::to_string(V) +
                                " attn=" + std::to_string(A));
  const bool bi = cfg.kind != Seq2SeqKind::rnnenc;
  enc_width_ = bi ? 2 * H : H;
  dec_in_ = cfg.kind == Seq2SeqKind::additive ? E + 2 * H : E;
  feat_ = bi ? 3 * H : H;

  // registration order of the twin's __init__
  src_emb_ = params.add("src_emb.weight", {V, E});
  const char* dir[8] = {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                        "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"};
  const std::vector<int> shapes[4] = {{G, E}, {G, H}, {G}, {G}};
  for (int k = 0; k < (bi ? 8 : 4); ++k) enc_[k] = params.add(std::string("encoder.") + dir[k], shapes[k % 4]);
  if (bi) {
    init_w_ = params.add("init.weight", {H, H});
    init_b_ = params.add("init.bias", {H});
  }
  if (cfg.kind == Seq2SeqKind::additive) {
    W_a_ = params.add("W_a.weight", {A, H});
    U_a_ = params.add("U_a.weight", {A, 2 * H});
    v_a_ = params.add("v_a.weight", {1, A});
  }
  tgt_emb_ = params.add("tgt_emb.weight", {V, E});
  dec_[0] = params.add("decoder.weight_ih", {G, dec_in_});
  dec_[1] = params.add("decoder.weight_hh", {G, H});
  dec_[2] = params.add("decoder.bias_ih", {G});
  dec_[3] = params.add("decoder.bias_hh", {G});
  if (cfg.kind == Seq2SeqKind::dot) W_a_ = params.add("W_a.weight", {2 * H, H});
  out_w_ = params.add("out.weight", {V, feat_});
  out_b_ = params.add("out.bias", {V});
  params.allocate();

  // torch.manual_seed(seed); Model(...): each module's reset_parameters in turn
  kernels::embedding_init(init, params.value(src_emb_), V, E);
  kernels::gru_init(init, params.value(enc_[0]), params.value(enc_[1]), params.value(enc_[2]), params.value(enc_[3]), E, H);
  if (bi) {
    kernels::gru_init(init, params.value(enc_[4]), params.value(enc_[5]), params.value(enc_[6]), params.value(enc_[7]), E,
                 H);
    kernels::linear_init(init, params.value(init_w_), params.value(init_b_), H, H);
  }
  if (cfg.kind == Seq2SeqKind::additive) {  // Linear(H, A), Linear(2H, A), Linear(A, 1), no biases
    kernels::linear_init(init, params.value(W_a_), nullptr, H, A);
    kernels::linear_init(init, params.value(U_a_), nullptr, 2 * H, A);
    kernels::linear_init(init, params.value(v_a_), nullptr, A, 1);
  }
  kernels::embedding_init(init, params.value(tgt_emb_), V, E);
  kernels::gru_init(init, params.value(dec_[0]), params.value(dec_[1]), params.value(dec_[2]), params.value(dec_[3]),
               dec_in_, H);
  if (cfg.kind == Seq2SeqKind::dot) kernels::linear_init(init, params.value(W_a_), nullptr, H, 2 * H);
  kernels::linear_init(init, params.value(out_w_), params.value(out_b_), feat_, V);

  const std::size_t Bm = sz(max_batch), S = sz(max_src), T = S + 1, BS = Bm * S;
  x_src_.resize(BS * E);
  d_x_src_.resize(BS * E);
  enc_out_.resize(BS * enc_width_);
  d_enc_out_.resize(BS * enc_width_);
  enc_cache_.resize(bi ? kernels::bigru_cache_size(max_batch, max_src, E, H) : kernels::gru_cache_size(max_batch, max_src, H));
  enc_scratch_.resize(bi ? kernels::bigru_scratch_size(max_batch, max_src, E, H)
                         : kernels::gru_scratch_size(max_batch, max_src, H));
  pad_.resize(BS);
  pk_.resize(BS * A);
  d_pk_.resize(BS * A);
  init_in_.resize(Bm * H);
  init_pre_.resize(Bm * H);
  d_init_.resize(Bm * H);
  s_.resize((T + 1) * Bm * H);
  dS_.resize((T + 1) * Bm * H);
  e_.resize(T * Bm * E);
  de_.resize(Bm * E);
  dec_x_.resize(T * Bm * dec_in_);
  d_dec_x_.resize(Bm * dec_in_);
  cell_cache_.resize(T * kernels::gru_cell_cache_size(max_batch, H));
  cell_scratch_.resize(kernels::gru_cell_scratch_size(max_batch, H));
  ctx_.resize(T * Bm * 2 * H);
  dctx_.resize(Bm * 2 * H);
  w_.resize(T * Bm * S);
  q_.resize(T * Bm * 2 * H);
  dq_.resize(Bm * 2 * H);
  feat_buf_.resize(T * Bm * feat_);
  dfeat_.resize(Bm * feat_);
  logits_.resize(T * Bm * V);
  probs_.resize(T * Bm * V);
  dlogits_.resize(T * Bm * V);
  ids_.resize(T * Bm);
  labels_.resize(T * Bm);
  std::size_t scratch = S;
  if (cfg.kind == Seq2SeqKind::additive) {
    const kernels::AdditiveDims d = additive_dims(max_batch, max_src, H, A);
    scratch = std::max({scratch, kernels::additive_forward_scratch_size(d), kernels::additive_backward_scratch_size(d)});
  }
  attn_scratch_.resize(scratch);
}

void Seq2Seq::encode(const std::int32_t* src, const std::int32_t* lengths, int B, int S) {
  const int V = cfg_.vocab, E = cfg_.embed, H = cfg_.hidden;
  if (B < 1 || B > max_batch_ || S < 1 || S > max_src_)
    throw std::invalid_argument("Seq2Seq: a batch of " + std::to_string(B) + " x " + std::to_string(S) +
                                " does not fit the buffers (" + std::to_string(max_batch_) + " x " +
                                std::to_string(max_src_) + ")");
  for (int b = 0; b < B; ++b)
    if (lengths[b] < 1 || lengths[b] > S)
      throw std::invalid_argument("Seq2Seq: lengths[" + std::to_string(b) + "]=" + std::to_string(lengths[b]) +
                                  " is outside [1, " + std::to_string(S) + "]");
  // x (B, S, E) = src_emb(src)
  kernels::embedding_forward(x_src_.data(), src, params.value(src_emb_), B * S, V, E);
  float* s0 = s_.data();  // (B, H)
  if (cfg_.kind == Seq2SeqKind::rnnenc) {
    // enc_out (B, S, H); s_0[b] = enc_out[b, L-1] (packing stops each row at its length)
    kernels::gru_forward(enc_out_.data(), enc_cache_.data(), x_src_.data(), params.value(enc_[0]), params.value(enc_[1]),
                    params.value(enc_[2]), params.value(enc_[3]), B, S, E, H);
    for (int b = 0; b < B; ++b)
      std::copy_n(enc_out_.data() + (sz(b) * S + lengths[b] - 1) * H, H, s0 + sz(b) * H);
    return;
  }
  // annotations (B, S, 2H) = [→h ; ←h], zero past each length
  const kernels::BiGruWeights<float> w{params.value(enc_[0]), params.value(enc_[1]), params.value(enc_[2]),
                                  params.value(enc_[3]), params.value(enc_[4]), params.value(enc_[5]),
                                  params.value(enc_[6]), params.value(enc_[7])};
  kernels::bigru_forward(enc_out_.data(), enc_cache_.data(), x_src_.data(), lengths, w, B, S, E, H);
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < S; ++j) pad_[sz(b) * S + j] = j >= lengths[b] ? 1 : 0;
  // s_0 = tanh(init(←h_1)): the backward direction's state after reading the whole sentence
  for (int b = 0; b < B; ++b) std::copy_n(enc_out_.data() + sz(b) * S * 2 * H + H, H, init_in_.data() + sz(b) * H);
  kernels::linear_forward(init_pre_.data(), init_in_.data(), params.value(init_w_), params.value(init_b_), B, H, H);
  for (std::size_t k = 0; k < sz(B) * H; ++k) s0[k] = std::tanh(init_pre_[k]);
  if (cfg_.kind == Seq2SeqKind::additive)  // U_a h_j, once per sentence (App. A.1.2)
    kernels::additive_project_keys(pk_.data(), enc_out_.data(), params.value(U_a_), B * S, 2 * H, cfg_.attn);
}

void Seq2Seq::step(int i, int B, int S) {
  const int V = cfg_.vocab, E = cfg_.embed, H = cfg_.hidden, H2 = 2 * H;
  const std::size_t BH = sz(B) * H, Bm = sz(max_batch_);
  const float* s_prev = s_.data() + sz(i) * Bm * H;
  float* s_next = s_.data() + sz(i + 1) * Bm * H;
  float* e = e_.data() + sz(i) * Bm * E;
  float* x = dec_x_.data() + sz(i) * Bm * dec_in_;
  float* ctx = ctx_.data() + sz(i) * Bm * H2;
  float* w = w_.data() + sz(i) * Bm * S;
  float* feat = feat_buf_.data() + sz(i) * Bm * feat_;
  float* cache = cell_cache_.data() + sz(i) * kernels::gru_cell_cache_size(max_batch_, H);
  const float *wi = params.value(dec_[0]), *wh = params.value(dec_[1]), *bi = params.value(dec_[2]),
              *bh = params.value(dec_[3]);
  kernels::embedding_forward(e, ids_.data() + sz(i) * Bm, params.value(tgt_emb_), B, V, E);
  switch (cfg_.kind) {
    case Seq2SeqKind::rnnenc:
      kernels::gru_cell_forward(s_next, cache, e, s_prev, wi, wh, bi, bh, B, E, H);
      std::copy_n(s_next, BH, feat);
      break;
    case Seq2SeqKind::additive:
      // c_i from the previous state s_{i-1} (here s_prev), then x = [e; c]
      kernels::additive_attention_forward(ctx, w, attn_scratch_.data(), s_prev, pk_.data(), enc_out_.data(), pad_.data(),
                                     params.value(W_a_), params.value(v_a_), additive_dims(B, S, H, cfg_.attn));
      for (int b = 0; b < B; ++b) {
        std::copy_n(e + sz(b) * E, E, x + sz(b) * dec_in_);
        std::copy_n(ctx + sz(b) * H2, H2, x + sz(b) * dec_in_ + E);
      }
      kernels::gru_cell_forward(s_next, cache, x, s_prev, wi, wh, bi, bh, B, dec_in_, H);
      break;
    case Seq2SeqKind::dot: {
      kernels::gru_cell_forward(s_next, cache, e, s_prev, wi, wh, bi, bh, B, E, H);
      float* q = q_.data() + sz(i) * Bm * H2;  // (B, 2H) = W_a s_i
      kernels::linear_forward(q, s_next, params.value(W_a_), static_cast<const float*>(nullptr), B, H, H2);
      kernels::dot_attention_forward(ctx, w, q, enc_out_.data(), enc_out_.data(), pad_.data(), B, S, H2, H2);
      break;
    }
  }
  if (cfg_.kind != Seq2SeqKind::rnnenc)
    for (int b = 0; b < B; ++b) {  // feat = [s_i ; c_i]
      std::copy_n(s_next + sz(b) * H, H, feat + sz(b) * feat_);
      std::copy_n(ctx + sz(b) * H2, H2, feat + sz(b) * feat_ + H);
    }
  kernels::linear_forward(logits_.data() + sz(i) * Bm * V, feat, params.value(out_w_), params.value(out_b_), B, feat_, V);
}

void Seq2Seq::decode(const std::int32_t* tgt_in, int B, int S, int T, double teacher_forcing, random::Generator* g) {
  const int V = cfg_.vocab;
  const std::size_t Bm = sz(max_batch_);
  for (int b = 0; b < B; ++b) ids_[b] = tgt_in ? tgt_in[sz(b) * T] : data::kBos;
  for (int i = 0; i < T; ++i) {
    step(i, B, S);
    if (i + 1 == T) break;
    bool teacher = tgt_in != nullptr;
    if (teacher && teacher_forcing < 1.0) {  // the twin's float(torch.rand(1)) < ratio
      float u = 0;
      g->uniform(&u, 1);
      teacher = static_cast<double>(u) < teacher_forcing;
    }
    std::int32_t* next = ids_.data() + sz(i + 1) * Bm;
    for (int b = 0; b < B; ++b)
      next[b] = teacher ? tgt_in[sz(b) * T + i + 1] : tensor::argmax(logits_.data() + (sz(i) * Bm + b) * V, sz(V));
  }
}

void Seq2Seq::backward(const std::int32_t* src, const std::int32_t* lengths, int B, int S, int T) {
  const int V = cfg_.vocab, E = cfg_.embed, H = cfg_.hidden, H2 = 2 * H;
  const std::size_t Bm = sz(max_batch_), BH = sz(B) * H;
  std::fill(dS_.begin(), dS_.begin() + sz(T + 1) * Bm * H, 0.0f);
  std::fill(d_enc_out_.begin(), d_enc_out_.begin() + sz(B) * S * enc_width_, 0.0f);
  std::fill(d_pk_.begin(), d_pk_.begin() + sz(B) * S * cfg_.attn, 0.0f);
  const float *wi = params.value(dec_[0]), *wh = params.value(dec_[1]);
  float *dwi = params.grad(dec_[0]), *dwh = params.grad(dec_[1]), *dbi = params.grad(dec_[2]),
        *dbh = params.grad(dec_[3]);
  for (int i = T - 1; i >= 0; --i) {
    float* dS_prev = dS_.data() + sz(i) * Bm * H;
    float* dS_next = dS_.data() + sz(i + 1) * Bm * H;
    const float* s_prev = s_.data() + sz(i) * Bm * H;
    const float* s_next = s_.data() + sz(i + 1) * Bm * H;
    const float* cache = cell_cache_.data() + sz(i) * kernels::gru_cell_cache_size(max_batch_, H);
    const float* feat = feat_buf_.data() + sz(i) * Bm * feat_;
    const float* w = w_.data() + sz(i) * Bm * S;
    // the output layer
    std::fill_n(dfeat_.begin(), sz(B) * feat_, 0.0f);
    kernels::linear_backward(dfeat_.data(), params.grad(out_w_), params.grad(out_b_), dlogits_.data() + sz(i) * Bm * V,
                        feat, params.value(out_w_), B, feat_, V);
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < H; ++k) dS_next[sz(b) * H + k] += dfeat_[sz(b) * feat_ + k];
    std::fill_n(de_.begin(), sz(B) * E, 0.0f);
    switch (cfg_.kind) {
      case Seq2SeqKind::rnnenc:
        kernels::gru_cell_backward(de_.data(), dS_prev, dwi, dwh, dbi, dbh, cell_scratch_.data(), dS_next, cache,
                              e_.data() + sz(i) * Bm * E, s_prev, wi, wh, B, E, H);
        break;
      case Seq2SeqKind::additive: {
        for (int b = 0; b < B; ++b) std::copy_n(dfeat_.data() + sz(b) * feat_ + H, H2, dctx_.data() + sz(b) * H2);
        std::fill_n(d_dec_x_.begin(), sz(B) * dec_in_, 0.0f);
        kernels::gru_cell_backward(d_dec_x_.data(), dS_prev, dwi, dwh, dbi, dbh, cell_scratch_.data(), dS_next, cache,
                              dec_x_.data() + sz(i) * Bm * dec_in_, s_prev, wi, wh, B, dec_in_, H);
        for (int b = 0; b < B; ++b) {
          const float* dx = d_dec_x_.data() + sz(b) * dec_in_;
          std::copy_n(dx, E, de_.data() + sz(b) * E);
          for (int k = 0; k < H2; ++k) dctx_[sz(b) * H2 + k] += dx[E + k];
        }
        kernels::additive_attention_backward(dS_prev, d_pk_.data(), d_enc_out_.data(), params.grad(W_a_),
                                        params.grad(v_a_), attn_scratch_.data(), dctx_.data(),
                                        static_cast<const float*>(nullptr), s_prev, pk_.data(), enc_out_.data(), w,
                                        params.value(W_a_), params.value(v_a_), additive_dims(B, S, H, cfg_.attn));
        break;
      }
      case Seq2SeqKind::dot: {
        for (int b = 0; b < B; ++b) std::copy_n(dfeat_.data() + sz(b) * feat_ + H, H2, dctx_.data() + sz(b) * H2);
        std::fill_n(dq_.begin(), sz(B) * H2, 0.0f);
        const float* q = q_.data() + sz(i) * Bm * H2;
        kernels::dot_attention_backward(dq_.data(), d_enc_out_.data(), d_enc_out_.data(), attn_scratch_.data(),
                                   dctx_.data(), w, q, enc_out_.data(), enc_out_.data(), B, S, H2, H2);
        // q = W_a s_i: into dS_next before the cell reads it
        kernels::linear_backward(dS_next, params.grad(W_a_), static_cast<float*>(nullptr), dq_.data(), s_next,
                            params.value(W_a_), B, H, H2);
        kernels::gru_cell_backward(de_.data(), dS_prev, dwi, dwh, dbi, dbh, cell_scratch_.data(), dS_next, cache,
                              e_.data() + sz(i) * Bm * E, s_prev, wi, wh, B, E, H);
        break;
      }
    }
    kernels::embedding_backward(params.grad(tgt_emb_), de_.data(), ids_.data() + sz(i) * Bm, B, V, E);
  }
  // into the encoder through s_0 (and, with attention, through the annotations)
  const float* dS0 = dS_.data();
  std::fill_n(d_x_src_.begin(), sz(B) * S * E, 0.0f);
  if (cfg_.kind == Seq2SeqKind::rnnenc) {
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < H; ++k) d_enc_out_[(sz(b) * S + lengths[b] - 1) * H + k] += dS0[sz(b) * H + k];
    kernels::gru_backward(d_x_src_.data(), params.grad(enc_[0]), params.grad(enc_[1]), params.grad(enc_[2]),
                     params.grad(enc_[3]), enc_scratch_.data(), d_enc_out_.data(), enc_cache_.data(), x_src_.data(),
                     params.value(enc_[0]), params.value(enc_[1]), B, S, E, H);
  } else {
    // s_0 = tanh(u): du = ds_0 (1 - s_0²)
    for (std::size_t k = 0; k < BH; ++k) d_init_[k] = dS0[k] * (1.0f - s_[k] * s_[k]);
    std::fill_n(dfeat_.begin(), BH, 0.0f);  // reused as d(←h_1) (B, H)
    kernels::linear_backward(dfeat_.data(), params.grad(init_w_), params.grad(init_b_), d_init_.data(), init_in_.data(),
                        params.value(init_w_), B, H, H);
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < H; ++k) d_enc_out_[sz(b) * S * H2 + H + k] += dfeat_[sz(b) * H + k];
    if (cfg_.kind == Seq2SeqKind::additive)
      kernels::additive_project_keys_backward(d_enc_out_.data(), params.grad(U_a_), d_pk_.data(), enc_out_.data(),
                                         params.value(U_a_), B * S, H2, cfg_.attn);
    const kernels::BiGruWeights<float> w{params.value(enc_[0]), params.value(enc_[1]), params.value(enc_[2]),
                                    params.value(enc_[3]), params.value(enc_[4]), params.value(enc_[5]),
                                    params.value(enc_[6]), params.value(enc_[7])};
    const kernels::BiGruGrads<float> g{params.grad(enc_[0]), params.grad(enc_[1]), params.grad(enc_[2]),
                                  params.grad(enc_[3]), params.grad(enc_[4]), params.grad(enc_[5]),
                                  params.grad(enc_[6]), params.grad(enc_[7])};
    kernels::bigru_backward(d_x_src_.data(), g, enc_scratch_.data(), d_enc_out_.data(), enc_cache_.data(), x_src_.data(),
                       lengths, w, B, S, E, H);
  }
  kernels::embedding_backward(params.grad(src_emb_), d_x_src_.data(), src, B * S, V, E);
}

float Seq2Seq::train_step(const Seq2SeqBatch& batch, double teacher_forcing, random::Generator& g) {
  const int B = batch.B, S = batch.S, T = S + 1, V = cfg_.vocab;
  const std::size_t Bm = sz(max_batch_);
  encode(batch.src, batch.lengths, B, S);
  decode(batch.tgt_in, B, S, T, teacher_forcing, &g);
  // labels step-major (T, B), as the logits are; padding is ignored
  for (int i = 0; i < T; ++i) {
    for (int b = 0; b < B; ++b) labels_[sz(i) * B + b] = batch.tgt_out[sz(b) * T + i];
  }
  // The logits of step i sit at rows i·Bm .. i·Bm + B - 1; compact them when B < Bm.
  float loss_sum = 0;
  int counted_total = 0;
  for (int i = 0; i < T; ++i) {
    for (int b = 0; b < B; ++b)
      if (labels_[sz(i) * B + b] != data::kPad) ++counted_total;
  }
  // one pass over all steps: rows of step i are B consecutive rows at i·Bm
  std::fill(dlogits_.begin(), dlogits_.begin() + sz(T) * Bm * V, 0.0f);
  double total = 0;
  for (int i = 0; i < T; ++i) {
    int m = 0;
    const float l = kernels::masked_cross_entropy_forward(probs_.data() + sz(i) * Bm * V, logits_.data() + sz(i) * Bm * V,
                                                     labels_.data() + sz(i) * B, B, V, data::kPad, &m);
    total += static_cast<double>(l) * m;
    // d(mean over all counted tokens) = d(per-step mean) · m / M
    if (m > 0)
      kernels::masked_cross_entropy_backward(dlogits_.data() + sz(i) * Bm * V,
                                        static_cast<float>(m) / static_cast<float>(counted_total),
                                        probs_.data() + sz(i) * Bm * V, labels_.data() + sz(i) * B, B, V,
                                        data::kPad);
  }
  loss_sum = counted_total ? static_cast<float>(total / counted_total) : 0.0f;
  backward(batch.src, batch.lengths, B, S, T);
  return loss_sum;
}

void Seq2Seq::logits(const Seq2SeqBatch& batch, float* out) {
  const int B = batch.B, S = batch.S, T = S + 1, V = cfg_.vocab;
  encode(batch.src, batch.lengths, B, S);
  decode(batch.tgt_in, B, S, T, 1.0, nullptr);
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < T; ++i)
      std::copy_n(logits_.data() + (sz(i) * max_batch_ + b) * V, V, out + (sz(b) * T + i) * V);
}

void Seq2Seq::greedy(const std::int32_t* src, const std::int32_t* lengths, int B, int S, int steps,
                     std::int32_t* pred, float* weights) {
  if (steps < 1 || steps > max_src_ + 1)
    throw std::invalid_argument("Seq2Seq::greedy: steps must be in [1, " + std::to_string(max_src_ + 1) + "], got " +
                                std::to_string(steps));
  const int V = cfg_.vocab;
  const std::size_t Bm = sz(max_batch_);
  encode(src, lengths, B, S);
  decode(nullptr, B, S, steps, 0.0, nullptr);
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < steps; ++i) {
      pred[sz(b) * steps + i] = tensor::argmax(logits_.data() + (sz(i) * Bm + b) * V, sz(V));
      if (weights && has_attention())
        std::copy_n(w_.data() + (sz(i) * Bm + b) * S, S, weights + (sz(b) * steps + i) * S);
    }
}

}  // namespace attnlab::models
