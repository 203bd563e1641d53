// Multi-head self-attention over one sequence, with an optional causal mask
// and a streaming step: the attention page's MultiHeadSelfAttention
// (data/sources/attention_page.txt §2 and §3). It is nn.MultiheadAttention(embed_dim, num_heads,
// dropout, bias, batch_first=True) called as mha(x, x, x, need_weights=False)
// (and with the lower-triangular attn_mask when causal), so its parameters,
// names and initialisation are that module's (attnlab/nn/multihead_attention.hpp).
//
//   attnlab::Generator gen(0);
//   attnlab::nn::MultiheadSelfAttention m(attnlab::nn::MultiheadSelfAttentionOptions(8, 2).bias(false), gen);
//   m.forward(attnlab::Tensor<2>(xt::ones<float>({4, 8}))).shape();   // (4, 8)
//   m.named_parameters();   // in_proj_weight (24, 8) = [W_Q; W_K; W_V], out_proj.weight (8, 8) = W_O
//
// Letters: B batch, T length, C = embed_dim, H = num_heads.
#pragma once

#include "attnlab/nn/cache.hpp"
#include "attnlab/nn/module.hpp"
#include "attnlab/nn/multihead_attention.hpp"
#include "attnlab/options.hpp"

namespace attnlab::nn {

struct MultiheadSelfAttentionOptions {
  MultiheadSelfAttentionOptions(int embed_dim, int num_heads) : embed_dim_(embed_dim), num_heads_(num_heads) {}
  ATTNLAB_ARG(int, embed_dim);
  ATTNLAB_ARG(int, num_heads);
  ATTNLAB_ARG(double, dropout) = 0.0;  // on the attention weights, training-mode forward only
  ATTNLAB_ARG(bool, bias) = true;      // in_proj_bias and out_proj.bias (the page's layer has none)
  ATTNLAB_ARG(bool, causal) = false;   // step t sees steps 0 .. t (Vaswani et al. 2017, §3.2.3)
};

/// Parameters (nn.MultiheadAttention's state_dict): in_proj_weight (3C, C),
/// in_proj_bias (3C) with bias, out_proj.weight (C, C), out_proj.bias (C) with
/// bias; initialised from `gen` exactly as PyTorch 1.13 initialises them.
/// Throws std::invalid_argument when num_heads does not divide embed_dim
/// (naming both), for sizes below 1, or dropout outside [0, 1]. `gen` draws the
/// dropout masks too, so it must outlive the module.
class MultiheadSelfAttention : public Module {
 public:
  MultiheadSelfAttention(const MultiheadSelfAttentionOptions& options, Generator& gen, const Scope& scope = {});

  /// y (B, T, C) from x (B, T, C), or (T, C) from (T, C) (one unbatched
  /// sequence). With causal, position i attends to 0 .. i: the future is set
  /// to -inf before the softmax. Throws std::invalid_argument naming the shape.
  Tensor<3> forward(const Tensor<3>& x);
  Tensor<2> forward(const Tensor<2>& x);
  /// ADDS the parameter gradients and returns d(loss)/dx, given d(loss)/dy and
  /// the x of the last forward (pass it again).
  Tensor<3> backward(const Tensor<3>& grad_output, const Tensor<3>& x);
  Tensor<2> backward(const Tensor<2>& grad_output, const Tensor<2>& x);

  /// An empty cache: keys() and values() of shape (0, C), or (B, 0, C) with
  /// options.batch. Throws std::logic_error unless causal (a non-causal layer
  /// attends to steps that a stream has not seen yet).
  Cache init_cache(const CacheOptions& options = {}) const;
  /// The output for the next step of the stream: x_t (C) -> (C), or (B, C) ->
  /// (B, C) for a batched cache. Appends this step's key and value to `cache`;
  /// costs O(t·C) beyond the projections, and equals row t of forward() over
  /// the whole sequence (evaluation mode: a step never drops). Throws
  /// std::length_error when the cache is full, std::invalid_argument for a
  /// shape or a cache that does not fit.
  Tensor<1> step(const Tensor<1>& x_t, Cache& cache);
  Tensor<2> step(const Tensor<2>& x_t, Cache& cache);

  /// For containers (Sequential, TransformerBlock): take this layer's slots
  /// in a cache being made, and step B = cache.batch() rows of C in place of
  /// step() (out and x may not overlap).
  void add_to_cache(Cache& cache) const;
  void step_rows(float* out, const float* x, Cache& cache, StepCursor& cursor);

  const MultiheadSelfAttentionOptions& options() const { return options_; }
  /// The underlying nn.MultiheadAttention (its parameter views).
  const MultiheadAttention& attention() const { return attn_; }

  /// Multiply-adds of one forward over (B, T, C) or (T, C) (nn/cost.hpp).
  std::size_t forward_macs(const std::vector<std::size_t>& input_shape) const;

 private:
  MultiheadSelfAttentionOptions options_;
  MultiheadAttention attn_;
};

}  // namespace attnlab::nn
