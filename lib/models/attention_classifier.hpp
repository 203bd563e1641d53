// The course's one-layer attention classifier (day 5, script 13; with one
// head and positions, script 19's `Simple`):
//   h = tok(x) [+ pos(arange(T))]; a = MHA(h, h, h); h = LayerNorm(h + a);
//   logits = head(mean over time of h)
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/multihead_attention.hpp"
#include "kernels/parameters.hpp"
#include "random/generator.hpp"

namespace attnlab::models {

struct AttentionClassifierConfig {
  int vocab = 10;             // nn.Embedding(10, width)
  int max_len = 16;           // nn.Embedding(16, width): the position table
  int d_model = 32;           // width
  int n_heads = 4;            // heads; must divide d_model
  bool use_positions = true;  // add learned positions (the table exists either way)
  int n_classes = 2;
};

/// Parameters are named and ordered as the PyTorch module's state_dict:
/// tok.weight (V, C), pos.weight (P, C), attn.in_proj_weight (3C, C),
/// attn.in_proj_bias (3C), attn.out_proj.weight (C, C), attn.out_proj.bias (C),
/// norm.weight (C), norm.bias (C), head.weight (K, C), head.bias (K).
/// Construction draws from `init` in PyTorch's constructor order (tok, pos,
/// attn, norm, head; docs/torch_rng.md §7), so after torch.manual_seed(s) the
/// weights equal PyTorch's bit for bit. Buffers are sized once for batches of
/// up to max_batch sequences of `length` tokens; no step allocates.
/// Throws std::invalid_argument for dims that do not fit (heads not dividing
/// d_model, length beyond max_len, non-positive sizes).
class AttentionClassifier {
 public:
  AttentionClassifier(const AttentionClassifierConfig& cfg, random::Generator& init, int max_batch, int length);

  kernels::Parameters params;

  /// A model of this one's configuration and weights whose buffers hold
  /// `max_batch` sequences: the copy that trains a split step's second half
  /// (training/split_step.hpp), which never sees more than half a batch,
  /// while this model's buffers also hold the evaluation batch (512 against
  /// 32: a full copy spent a row's first 0.2 s zeroing, copying and
  /// page-faulting buffers it never used). Gradients are zero.
  AttentionClassifier replica(int max_batch) const;

  /// Training step on tokens (B, T): forward, mean cross-entropy against
  /// labels (B), backward ADDING into params.grads(). Returns the loss.
  /// The attention layer has no dropout (nn.MultiheadAttention's default),
  /// so `g` is not drawn from.
  float train_step(const std::int32_t* tokens, const std::int32_t* labels, int B, random::Generator& g);
  /// The same step in the parts training::StepRunner splits a batch with
  /// (training/split_step.hpp): this step draws nothing, so draw_step and
  /// take_step_draws do nothing, and train_step_drawn is train_step.
  void draw_step(random::Generator&, int) {}
  void take_step_draws(const AttentionClassifier&, int, int) {}
  float train_step_drawn(const std::int32_t* tokens, const std::int32_t* labels, int B);

  /// Evaluation forward: logits (B, K).
  void logits(const std::int32_t* tokens, int B, float* out);

  /// Evaluation forward returning the attention weights averaged over heads,
  /// (B, T, T), as nn.MultiheadAttention returns them by default.
  void attention_weights(const std::int32_t* tokens, int B, float* out);

  /// Multiply-adds of one forward pass on B sequences (nn/cost.hpp).
  std::size_t forward_macs(int B) const;

  /// Bytes the constructor allocates for these arguments: parameters and
  /// their gradients, activations and scratch. For sizing a run before it
  /// starts; tests/memory holds it to what the constructor really takes.
  static std::size_t memory_bytes(const AttentionClassifierConfig& cfg, int max_batch, int length);
  /// params.count() of a model built with `cfg`.
  static std::size_t parameter_count(const AttentionClassifierConfig& cfg);

 private:
  void forward(const std::int32_t* tokens, int B, float* attn_weights);
  std::size_t tok_, pos_, in_w_, in_b_, out_w_, out_b_, norm_w_, norm_b_, head_w_, head_b_;
  AttentionClassifierConfig cfg_;
  int max_batch_, T_;
  // Activations (max_batch rows), named as in the forward formula.
  std::vector<float> h_, a_, r_, n_, mean_, rstd_, pooled_, logits_, probs_, mha_cache_;
  // Gradients and scratch of the backward pass.
  std::vector<float> dlogits_, dpooled_, dn_, dr_, dh_, mha_scratch_;
};

}  // namespace attnlab::models
