// The `transformer` row of the translation experiment (issue 13): an
// encoder-decoder of the library's pre-norm blocks (kernels/pre_norm_block)
// with cross-attention over the encoder (Vaswani et al. 2017 §3.1, Figure 1):
//
//   x_0  = src_emb(src) + src_pos(0..S-1)                          (B, S, C)
//   x_k  = Block_k(x_{k-1})  self-attention, key_padding_mask = source padding
//   m    = enc_norm(x_n)                                           the memory
//   y_0  = tgt_emb(tgt_in) + tgt_pos(0..T-1)                       (B, T, C)
//   u_k  = Block_k(y_{k-1})  causal self-attention (query i sees targets <= i)
//   y_k  = u_k + MHA_k(cross_norm_k(u_k), m, m, key_padding_mask)   T != S
//   logits = out(dec_norm(y_n))                                    (B, T, V)
//
// Each decoder layer is the library's block (self-attention, feed-forward)
// followed by a pre-norm cross-attention sublayer, so the block is reused as
// it is; Vaswani's layer puts the cross-attention before the feed-forward.
// Positions are learned (nn.Embedding over P = test_max_len + 1 rows), as
// the course's classifiers learn theirs: a position never seen in training
// has an untrained row, so sentences longer than any trained one are not
// expected to work. No dropout (the recurrent rows have none either).
// Greedy decoding reruns the decoder on the prefix at each step (causal, so
// every earlier row is unchanged); the alignment printed is the last
// layer's cross-attention, averaged over heads (need_weights=True).
//
// PyTorch twin: scripts/translation_models.py (Transformer); parameter
// names and registration order are its state_dict's.
#pragma once

#include <cstdint>
#include <vector>

#include "models/seq2seq.hpp"
#include "kernels/pre_norm_block.hpp"
#include "kernels/parameters.hpp"
#include "random/generator.hpp"

namespace attnlab::models {

struct TransformerSeq2SeqConfig {
  int vocab = 13;
  int d_model = 64;
  int n_heads = 4;
  int ff = 256;        // feed-forward width (4 d_model, as the course's blocks)
  int n_layers = 2;    // encoder blocks, and decoder layers
  int positions = 21;  // rows of each position table: the longest target (test_max_len + 1)
};

class TransformerSeq2Seq {
 public:
  /// Declares and initialises the parameters as the twin's constructor after
  /// torch.manual_seed (draws from `init`), and allocates every buffer for
  /// batches up to max_batch rows of up to max_src words (targets max_src + 1).
  /// Throws std::invalid_argument for sizes < 1, heads not dividing d_model,
  /// or positions < max_src + 1.
  TransformerSeq2Seq(const TransformerSeq2SeqConfig& cfg, random::Generator& init, int max_batch, int max_src);

  kernels::Parameters params;

  static std::size_t parameter_count(const TransformerSeq2SeqConfig& cfg);
  static std::size_t memory_bytes(const TransformerSeq2SeqConfig& cfg, int max_batch, int max_src);

  /// Forward with the reference fed at every step (teacher_forcing must be 1:
  /// the decoder reads the whole target at once; throws std::invalid_argument
  /// otherwise), cross-entropy ignoring padding, backward ADDING into
  /// params.grads(). `g` is unused (no dropout). Returns the loss.
  float train_step(const Seq2SeqBatch& batch, double teacher_forcing, random::Generator& g);

  /// Teacher-forced logits (B, T, V), no gradient.
  void logits(const Seq2SeqBatch& batch, float* out);

  /// Greedy decoding from BOS for `steps` <= max_src + 1 steps: pred (B, steps);
  /// weights (B, steps, S) the last layer's head-averaged cross-attention, or nullptr.
  void greedy(const std::int32_t* src, const std::int32_t* lengths, int B, int S, int steps, std::int32_t* pred,
              float* weights);

  bool has_attention() const { return true; }

 private:
  void encode(const std::int32_t* src, const std::int32_t* lengths, int B, int S);
  // decoder over T steps of ids (B, T); weights of the last cross-attention when non-null
  void decode(const std::int32_t* ids, int B, int S, int T, float* weights);
  void backward(const std::int32_t* src, const std::int32_t* ids, int B, int S, int T);
  kernels::PreNormTensors<float> block(std::size_t first, bool grad);

  TransformerSeq2SeqConfig cfg_;
  int max_batch_, max_src_;
  std::size_t src_emb_, src_pos_, tgt_emb_, tgt_pos_, enc_norm_w_, enc_norm_b_, dec_norm_w_, dec_norm_b_, out_w_,
      out_b_;
  std::vector<std::size_t> enc_block_, dec_block_, cross_;  // first parameter index of each
  std::vector<kernels::PreNormWorkspace<float>> enc_ws_, dec_ws_;
  // activations: encoder inputs per layer (n+1), memory; decoder per layer: block input, block output u
  std::vector<std::vector<float>> enc_x_, dec_y_, dec_u_, cross_h_, cross_mean_, cross_rstd_, cross_a_,
      cross_cache_;
  std::vector<float> mem_, mem_mean_, mem_rstd_, hd_, hd_mean_, hd_rstd_, logits_, probs_, dlogits_;
  std::vector<float> d_y_, d_u_, d_h_, d_mem_, d_x_, d_xn_, cross_scratch_;
  std::vector<std::uint8_t> pad_;
  std::vector<std::int32_t> ids_, labels_;
};

}  // namespace attnlab::models
