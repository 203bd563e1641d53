// The course's day-7 attention classifier (data/course/18_rnn_vs_attention.py):
//   h = tok(x) + pos(arange(T)); h = block_n(...block_1(h)); logits = head(mean_T(LN(h)))
// with the pre-norm blocks of kernels/pre_norm_block.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "models/token_position_rows.hpp"
#include "kernels/pre_norm_block.hpp"
#include "kernels/parameters.hpp"
#include "random/generator.hpp"

namespace attnlab::models {

struct TransformerClassifierConfig {
  int vocab = 10;
  int max_len = 16;
  int d_model = 32;
  int n_heads = 4;
  int n_blocks = 2;
  int ff_mult = 4;        // the feed-forward width is ff_mult · d_model
  double dropout = 0.1;   // attention weights and feed-forward output
  int n_classes = 2;
};

/// Parameters named and ordered as PyTorch's state_dict: tok.weight,
/// pos.weight, blocks.{i}.{norm1,attn,norm2,ff}.… (pre_norm_block_param_specs), norm.weight,
/// norm.bias, head.weight, head.bias; built from `init` in constructor order,
/// so the weights equal PyTorch's for the same seed (13666 parameters with one
/// block, 26370 with two, as the course prints). The first block computes
/// LN1 and its in-projection once per distinct (token, position) pair
/// (token_position_rows.hpp): forward values are PyTorch's computation bit
/// for bit on the sgemm tiles, those layers' gradients its sums grouped by
/// pair. forward_macs still counts the model's multiply-adds. Throws
/// std::invalid_argument for dims that do not fit.
class TransformerClassifier {
 public:
  TransformerClassifier(const TransformerClassifierConfig& cfg, random::Generator& init, int max_batch, int length);

  /// Bytes the constructor allocates for these arguments (parameters,
  /// gradients, every block's workspace, the activations between blocks),
  /// for sizing a run before it starts; tests/memory holds it to the
  /// constructor's.
  static std::size_t memory_bytes(const TransformerClassifierConfig& cfg, int max_batch, int length);
  /// params.count() of a model built with `cfg`.
  static std::size_t parameter_count(const TransformerClassifierConfig& cfg);

  kernels::Parameters params;

  /// A model of this one's configuration and weights whose buffers hold
  /// `max_batch` sequences: the copy that trains a split step's second half
  /// (training/split_step.hpp), which never sees more than half a batch,
  /// while this model's buffers also hold the evaluation batch (512 against
  /// 32: a full copy spent a row's first 0.2 s zeroing, copying and
  /// page-faulting buffers it never used). Gradients are zero.
  TransformerClassifier replica(int max_batch) const;

  /// Training step: forward with dropout drawn from `g` in PyTorch's order,
  /// mean cross-entropy, backward adding into params.grads(); returns the loss.
  float train_step(const std::int32_t* tokens, const std::int32_t* labels, int B, random::Generator& g);
  /// The same step in the parts training::StepRunner splits a batch with
  /// (training/split_step.hpp): draw_step draws every block's dropout masks
  /// for B sequences, in the order train_step draws them (block by block,
  /// the attention weights' then the feed-forward output's); take_step_draws
  /// copies rows [first, first + b) of another model's drawn masks;
  /// train_step_drawn trains with the masks drawn. train_step = draw_step,
  /// then train_step_drawn. Throws std::invalid_argument for a batch beyond
  /// the buffers.
  void draw_step(random::Generator& g, int B);
  void take_step_draws(const TransformerClassifier& from, int first, int b);
  float train_step_drawn(const std::int32_t* tokens, const std::int32_t* labels, int B);
  /// Evaluation forward (no dropout): logits (B, K).
  void logits(const std::int32_t* tokens, int B, float* out);

  /// Multiply-adds of one forward pass on B sequences (nn/cost.hpp).
  std::size_t forward_macs(int B) const;

 private:
  void forward(const std::int32_t* tokens, int B, bool train);  // train: with the masks drawn
  kernels::BlockDims dims(int B) const;
  kernels::PreNormTensors<float> tensors(std::size_t block, bool grads);
  TransformerClassifierConfig cfg_;
  int max_batch_, T_;
  std::size_t tok_, pos_, norm_w_, norm_b_, head_w_, head_b_;
  std::vector<std::size_t> block_first_;  // index of each block's first parameter
  std::vector<kernels::PreNormWorkspace<float>> ws_;
  std::vector<std::vector<float>> hs_;    // hs_[i] (B, T, C): the input of block i; hs_[n] the last output
  std::vector<float> n_, mean_, rstd_, pooled_, logits_, probs_;
  std::vector<float> dlogits_, dpooled_, dn_, dh_a_, dh_b_;
  TokenPositionRows first_rows_;  // block 0's distinct inputs (a batch's (token, position) pairs), kept for backward
};

}  // namespace attnlab::models
