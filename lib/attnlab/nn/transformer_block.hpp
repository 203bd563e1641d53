// The transformer block, post-norm or pre-norm (PyTorch's norm_first), the
// unit a transformer stacks (data/sources/attention_page.txt §4):
//
// norm_first = false (the default, the page's block and Vaswani et al. 2017
// §3.1): exactly PyTorch 1.13's nn.TransformerEncoderLayer(d_model, nhead,
// dim_feedforward, dropout, activation="relu", batch_first=True,
// norm_first=False) — same state_dict (self_attn.in_proj_weight, ...,
// linear1.weight, linear2.weight, norm1.weight, norm2.bias), same
// initialisation after manual_seed, same four dropout masks in the same order:
//   y = LN1(x + Dropout1(MHA(x)));  z = LN2(y + Dropout2(Linear2(Dropout(ReLU(Linear1(y))))))
// The maths is lib/models/post_norm_block.hpp.
//
// norm_first = true: the course's pre-norm block (data/course/17_block.py,
// Xiong et al. 2020), with the course's names (norm1, attn.in_proj_weight, ...,
// ff.0.weight, ff.2.weight) and GELU; dropout on the attention weights and on
// the feed-forward output:
//   x1 = x + MHA(LN1(x));  z = x1 + Dropout(Linear2(GELU(Linear1(LN2(x1)))))
// The maths is lib/models/transformer_block.hpp.
//
// Both take causal (the lower-triangular mask before the softmax) and stream
// with init_cache / step like MultiheadSelfAttention.
//
//   attnlab::nn::TransformerBlock b(attnlab::nn::TransformerBlockOptions(8, 2, 16), gen);
//   b.forward(x).shape();             // (4, 8) for x (4, 8)
//   b.named_parameters().size();      // 12
//
// Letters: B batch, T length, C = d_model, H = nhead, F = dim_feedforward.
#pragma once

#include <memory>

#include "attnlab/nn/cache.hpp"
#include "attnlab/nn/module.hpp"
#include "attnlab/options.hpp"
#include "kernels/post_norm_block.hpp"
#include "kernels/pre_norm_block.hpp"

namespace attnlab::nn {

/// nn.TransformerEncoderLayer's arguments with their Python defaults (except
/// batch_first, always true here, and activation, which norm_first chooses:
/// ReLU post-norm, the course's GELU pre-norm), plus causal.
struct TransformerBlockOptions {
  TransformerBlockOptions(int d_model, int nhead, int dim_feedforward = 2048)
      : d_model_(d_model), nhead_(nhead), dim_feedforward_(dim_feedforward) {}
  ATTNLAB_ARG(int, d_model);
  ATTNLAB_ARG(int, nhead);
  ATTNLAB_ARG(int, dim_feedforward);
  ATTNLAB_ARG(double, dropout) = 0.0;  // PyTorch's default is 0.1; the page's is 0.0
  ATTNLAB_ARG(bool, norm_first) = false;
  ATTNLAB_ARG(bool, causal) = false;
};

/// Parameters registered and initialised from `gen` in PyTorch's order (see
/// above); `gen` also draws the dropout masks of training-mode forwards (so it
/// must outlive the module; set_generator() points it elsewhere). Throws
/// std::invalid_argument when nhead does not divide d_model (naming both), for
/// sizes below 1, or dropout outside [0, 1].
class TransformerBlock : public Module {
 public:
  TransformerBlock(const TransformerBlockOptions& options, Generator& gen, const Scope& scope = {});

  /// z (B, T, C) from x (B, T, C), or (T, C) from (T, C). Training mode with
  /// dropout > 0 draws the masks. Throws std::invalid_argument naming the shape.
  Tensor<3> forward(const Tensor<3>& x);
  Tensor<2> forward(const Tensor<2>& x);
  /// ADDS the parameter gradients and returns d(loss)/dx for the last forward,
  /// given d(loss)/dz and that forward's x (pass it again). Throws
  /// std::logic_error without a forward, std::invalid_argument for shapes
  /// other than that forward's.
  Tensor<3> backward(const Tensor<3>& grad_output, const Tensor<3>& x);
  Tensor<2> backward(const Tensor<2>& grad_output, const Tensor<2>& x);

  /// As MultiheadSelfAttention::init_cache / step: needs causal; a step is row
  /// t of forward() in evaluation mode, at O(t·C) attention cost.
  Cache init_cache(const CacheOptions& options = {}) const;
  Tensor<1> step(const Tensor<1>& x_t, Cache& cache);
  Tensor<2> step(const Tensor<2>& x_t, Cache& cache);
  void add_to_cache(Cache& cache) const;
  void step_rows(float* out, const float* x, Cache& cache, StepCursor& cursor);

  const TransformerBlockOptions& options() const { return o_; }
  void set_generator(Generator& gen) { gen_ = &gen; }
  std::size_t forward_macs(const std::vector<std::size_t>& input_shape) const;

 private:
  kernels::BlockDims dims(int B, int T) const;
  kernels::PreNormTensors<float> pre_norm(bool grads) const;
  kernels::PostNormTensors<float> post_norm(bool grads) const;
  void ensure_workspace(int B, int T);

  TransformerBlockOptions o_;
  Generator* gen_;
  std::size_t first_;  // index of the first parameter in the store; the rest follow in order
  std::unique_ptr<kernels::PreNormWorkspace<float>> pre_ws_;
  std::unique_ptr<kernels::PostNormWorkspace<float>> post_ws_;
  int ws_batch_ = 0, ws_T_ = 0;
  int last_B_ = 0, last_T_ = 0;  // the last forward's shape, 0 = none
};

}  // namespace attnlab::nn
