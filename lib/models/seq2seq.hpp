// The recurrent encoder-decoders of the `translation` experiment (issue 13),
// one struct for the three rows that share a GRU decoder cell:
//
//   rnnenc    "encoder-decoder, no attention" (Cho et al. 2014; Bahdanau's
//             RNNenc): GRU encoder; its state at each row's last word is the
//             decoder's s_0; logits_i = out(s_i).
//   additive  "additive attention (Bahdanau)" (RNNsearch, Bahdanau et al.
//             2015 §3, App. A.1.2): bidirectional GRU annotations h_j,
//             s_0 = tanh(init(←h_1)), c_i from additive attention on s_{i-1},
//             s_i = GRUCell([emb(y_{i-1}); c_i], s_{i-1}), logits_i = out([s_i; c_i]).
//   dot       "dot-product attention (Luong)" (Luong et al. 2015 §3.1, the
//             "general" score): the same encoder and s_0, s_i = GRUCell(emb(y_{i-1}),
//             s_{i-1}), c_i from (W_a s_i)·h_j, logits_i = out([s_i; c_i]).
//
// PyTorch twin: scripts/translation_models.py (EncoderDecoder, Additive,
// DotProduct); parameter names and registration order are its state_dict's.
// The output layer is a plain linear layer where the paper has a maxout
// layer: a toy task needs no more (bahdanau_notes.md).
//
// Letters: B batch, S source width (the batch's longest sentence), T target
// steps (S + 1: the words and EOS), V vocabulary, E embedding, H hidden size
// (per direction), A alignment width.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/parameters.hpp"
#include "random/generator.hpp"

namespace attnlab::models {

enum class Seq2SeqKind { rnnenc, additive, dot };

/// "rnnenc", "additive" or "dot"; throws std::invalid_argument otherwise.
Seq2SeqKind seq2seq_kind_from_name(const std::string& name);

struct Seq2SeqConfig {
  Seq2SeqKind kind = Seq2SeqKind::additive;
  int vocab = 13;   // data::kFirstWord + n_words
  int embed = 32;
  int hidden = 64;  // per direction in the bidirectional encoder; the decoder's state size
  int attn = 64;    // A, the additive alignment network's width
};

/// A batch of sentence pairs cut to its longest source: src (B, S),
/// lengths (B), tgt_in and tgt_out (B, T = S + 1), padded with data::kPad.
struct Seq2SeqBatch {
  const std::int32_t *src, *lengths, *tgt_in, *tgt_out;
  int B, S;
};

class Seq2Seq {
 public:
  /// Declares and initialises the parameters exactly as the twin's
  /// constructor after torch.manual_seed (draws from `init`), and allocates
  /// every buffer for batches up to max_batch rows of up to max_src words.
  /// Throws std::invalid_argument unless all sizes are >= 1.
  Seq2Seq(const Seq2SeqConfig& cfg, random::Generator& init, int max_batch, int max_src);

  kernels::Parameters params;

  /// params.count() of a model built with `cfg`, without building it.
  static std::size_t parameter_count(const Seq2SeqConfig& cfg);
  /// Bytes the constructor allocates: parameters with their gradients and
  /// every forward and backward buffer, for sizing a run before it starts.
  static std::size_t memory_bytes(const Seq2SeqConfig& cfg, int max_batch, int max_src);
  /// Bytes this model's buffers hold (what memory_bytes predicts).
  std::size_t buffer_bytes() const;

  /// Forward with teacher forcing (ratio 1: the reference's previous word at
  /// every step; below 1 each step after the first draws one uniform from
  /// `g` and feeds the model's own argmax when it is >= ratio, as the twin's
  /// decode_logits), cross-entropy ignoring padding, backward ADDING into
  /// params.grads(). Returns the loss (nats per counted target token).
  float train_step(const Seq2SeqBatch& batch, double teacher_forcing, random::Generator& g);

  /// Teacher-forced logits (B, T, V) of a batch (no gradient), for parity.
  void logits(const Seq2SeqBatch& batch, float* out);

  /// Greedy decoding from BOS for `steps` <= max_src + 1 steps: pred
  /// (B, steps); weights (B, steps, S) the alignment of every step, or
  /// nullptr (the rnnenc model has none and leaves them untouched).
  void greedy(const std::int32_t* src, const std::int32_t* lengths, int B, int S, int steps, std::int32_t* pred,
              float* weights);

  bool has_attention() const { return cfg_.kind != Seq2SeqKind::rnnenc; }

 private:
  void encode(const std::int32_t* src, const std::int32_t* lengths, int B, int S);
  // One decoder step i: s_{i+1} from s_i and ids_[i]; writes logits of step i.
  void step(int i, int B, int S);
  // The decoder over T steps; tgt_in null means greedy (argmax fed back).
  void decode(const std::int32_t* tgt_in, int B, int S, int T, double teacher_forcing, random::Generator* g);
  void backward(const std::int32_t* src, const std::int32_t* lengths, int B, int S, int T);

  Seq2SeqConfig cfg_;
  int max_batch_, max_src_, enc_width_, dec_in_, feat_;
  // parameter indices
  std::size_t src_emb_, tgt_emb_, enc_[8], init_w_, init_b_, W_a_, U_a_, v_a_, dec_[4], out_w_, out_b_;
  // forward buffers (max sizes; step-major where a step writes a slice)
  std::vector<float> x_src_, enc_out_, enc_cache_, pk_, init_in_, init_pre_, s_, e_, dec_x_, cell_cache_, ctx_,
      w_, q_, feat_buf_, logits_, probs_, attn_scratch_;
  std::vector<std::uint8_t> pad_;
  std::vector<std::int32_t> ids_, labels_;
  // backward buffers
  std::vector<float> d_x_src_, d_enc_out_, enc_scratch_, d_pk_, d_init_, dS_, d_dec_x_, de_, dfeat_, dctx_, dq_,
      dlogits_, cell_scratch_;
};

}  // namespace attnlab::models
