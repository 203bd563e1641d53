// nn.MultiheadAttention over xtensor, with PyTorch 1.13's names, options,
// initialisation and results (torch/nn/modules/activation.py; libtorch's
// torch/nn/modules/activation.h). The maths is lib/kernels/multihead_attention.hpp.
//
//   attnlab::Generator gen(0);                                      // torch.manual_seed(0)
//   attnlab::nn::MultiheadAttention mha(attnlab::nn::MultiheadAttentionOptions(100, 10), gen);
//   auto [A, W] = mha.forward(Q, K, V);                             // A, W = MHA(Q, K, V)
//   // A (3, 1, 100), W (1, 3, 3) for Q, K, V of shape (3, 1, 100)
//
// Letters: L (or T) target length, S source length, N (or B) batch, E embed_dim,
// H num_heads, S' = S + add_bias_kv + add_zero_attn.
#pragma once

#include <optional>
#include <vector>

#include <xtensor/xarray.hpp>

#include "attnlab/nn/module.hpp"
#include "attnlab/options.hpp"
#include "kernels/multihead_attention.hpp"

namespace attnlab::nn {

/// nn.MultiheadAttention's constructor arguments, with their Python defaults.
/// kdim and vdim default to embed_dim (Python's None).
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int embed_dim, int num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  ATTNLAB_ARG(int, embed_dim);
  ATTNLAB_ARG(int, num_heads);
  ATTNLAB_ARG(double, dropout) = 0.0;    // on the attention weights, in training mode
  ATTNLAB_ARG(bool, bias) = true;        // in_proj_bias and out_proj.bias
  ATTNLAB_ARG(bool, add_bias_kv) = false;
  ATTNLAB_ARG(bool, add_zero_attn) = false;
  ATTNLAB_ARG(int, kdim);
  ATTNLAB_ARG(int, vdim);
  ATTNLAB_ARG(bool, batch_first) = false;  // false: (L, N, E), PyTorch's default
};

/// A boolean mask borrowed from an xtensor (True = blocked), or none.
template <std::size_t N>
struct BoolMask {
  BoolMask() = default;
  BoolMask(const xt::xtensor<bool, N>& m) : mask(&m) {}  // NOLINT: implicit, as passing a tensor in Python
  const xt::xtensor<bool, N>* mask = nullptr;
};

/// attn_mask: bool (True = blocked) or float (added to the scores; -inf
/// blocks), of shape (L, S) or (N·H, L, S); borrowed, or none.
struct AttnMask {
  AttnMask() = default;
  AttnMask(const xt::xtensor<bool, 2>& m) : bool2(&m) {}   // NOLINT
  AttnMask(const xt::xtensor<bool, 3>& m) : bool3(&m) {}   // NOLINT
  AttnMask(const xt::xtensor<float, 2>& m) : float2(&m) {}  // NOLINT
  AttnMask(const xt::xtensor<float, 3>& m) : float3(&m) {}  // NOLINT
  const xt::xtensor<bool, 2>* bool2 = nullptr;
  const xt::xtensor<bool, 3>* bool3 = nullptr;
  const xt::xtensor<float, 2>* float2 = nullptr;
  const xt::xtensor<float, 3>* float3 = nullptr;
};

/// forward()'s keyword arguments, with Python's defaults:
///   mha.forward(Q, K, V, {.key_padding_mask = kpm, .attn_mask = mask})
struct MultiheadAttentionForwardOptions {
  BoolMask<2> key_padding_mask;       // (N, S), True = key j of batch n is padding
  bool need_weights = true;
  AttnMask attn_mask;
  bool average_attn_weights = true;  // false: weights per head (N, H, L, S')
  bool is_causal = false;  // query i sees keys 0 .. i only, as attn_mask = triu(ones(L, S), 1) would (no mask memory)
};

/// What forward returns: (attn_output, attn_output_weights), as Python's pair.
/// The weights are (N, L, S') averaged over heads or (N, H, L, S') per head,
/// and std::nullopt with need_weights = false (Python's None).
struct MultiheadAttentionOutput {
  Tensor<3> attn_output;
  std::optional<xt::xarray<float>> attn_output_weights;
};

/// The gradients backward() returns for the three inputs. When query, key
/// and value are one tensor (self-attention), `query` holds the sum of the
/// three, as autograd gives the one leaf, and `key` and `value` are empty.
struct MultiheadAttentionGradients {
  Tensor<3> query, key, value;
};

/// nn.MultiheadAttention(embed_dim, num_heads, dropout, bias, add_bias_kv,
/// add_zero_attn, kdim, vdim, batch_first).
/// Parameters, in PyTorch's state_dict order:
///   in_proj_weight (3E, E) when kdim = vdim = E, else q_proj_weight (E, E),
///   k_proj_weight (E, kdim), v_proj_weight (E, vdim); in_proj_bias (3E) with
///   bias; bias_k, bias_v (1, 1, E) with add_bias_kv; out_proj.weight (E, E);
///   out_proj.bias (E) with bias.
/// The constructor initialises them from `gen` exactly as PyTorch 1.13 does
/// (kernels::mha_init), and keeps `gen` for the dropout masks of training-mode
/// forwards, as PyTorch draws them from its default generator (so `gen` must
/// outlive the module). Throws std::invalid_argument when num_heads does not
/// divide embed_dim, a size is not positive, or dropout is outside [0, 1].
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(const MultiheadAttentionOptions& options, Generator& gen, const Scope& scope = {});

  /// attn_output, attn_output_weights = mha(query, key, value, ...).
  ///   query (L, N, E), key (S, N, kdim), value (S, N, vdim); batch_first: (N, L, E), ...
  /// Passing one tensor as query, key and value (self-attention) projects it
  /// with one product, as PyTorch does. In training mode with dropout > 0 the
  /// weights' dropout mask is drawn from the generator (one word pair per
  /// weight, N·H·L·S' of them, PyTorch's order).
  /// Throws std::invalid_argument naming the argument, the shape given and
  /// the shape expected when a shape does not fit.
  /// A query row whose keys are all blocked gets zero weights and a zero head
  /// output where PyTorch returns NaN (lib/kernels/multihead_attention.hpp).
  /// In eval mode with need_weights = false the flash path runs
  /// (lib/kernels/flash_attention.hpp: tiles and an online softmax, memory
  /// O(L·E) instead of N·H·L·S' weights; the same output up to float
  /// rounding, ~1e-6); it keeps no cache, so backward() after it throws
  /// std::logic_error.
  MultiheadAttentionOutput forward(const Tensor<3>& query, const Tensor<3>& key, const Tensor<3>& value,
                                   const MultiheadAttentionForwardOptions& options = {});

  /// The backward pass of the last forward(): given d(loss)/d(attn_output)
  /// (its shape), ADDS the parameter gradients into the store's gradient
  /// buffer (as .grad accumulates in PyTorch) and returns the inputs'
  /// gradients. Pass the same query, key and value as to forward(): they are
  /// not copied, so a training step stays free of copies. Throws
  /// std::logic_error without a forward() before, std::invalid_argument when
  /// the shapes differ from that forward's.
  MultiheadAttentionGradients backward(const Tensor<3>& grad_output, const Tensor<3>& query, const Tensor<3>& key,
                                       const Tensor<3>& value);

  const MultiheadAttentionOptions& options() const { return options_; }
  /// True when the projections are packed into in_proj_weight (kdim = vdim = E).
  bool qkv_same_embed_dim() const { return packed_; }

  /// Views of the parameters (writable; each throws std::logic_error when the
  /// options do not create it).
  TensorView<2> in_proj_weight() const;
  TensorView<2> q_proj_weight() const;
  TensorView<2> k_proj_weight() const;
  TensorView<2> v_proj_weight() const;
  TensorView<1> in_proj_bias() const;
  TensorView<3> bias_k() const;
  TensorView<3> bias_v() const;
  TensorView<2> out_proj_weight() const;
  TensorView<1> out_proj_bias() const;

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  kernels::MhaParams<float> params() const;
  kernels::MhaGrads<float> grads() const;
  kernels::MhaGrads<float> grads_of_values() const;
  std::size_t need(std::size_t index, const char* name) const;

  MultiheadAttentionOptions options_;
  Generator* gen_;
  bool packed_;
  std::size_t in_w_ = kNone, q_w_ = kNone, k_w_ = kNone, v_w_ = kNone, in_b_ = kNone, bias_k_ = kNone,
              bias_v_ = kNone, out_w_ = kNone, out_b_ = kNone;
  // what the last forward left for backward
  bool have_forward_ = false;
  kernels::MhaDims dims_{};
  std::vector<float> cache_, scratch_;
  std::vector<float> flash_;  // the flash path's workspace (eval mode, need_weights = false)
  std::vector<std::uint8_t> keep_;
  float keep_scale_ = 1.0f;
  bool dropped_ = false;
};

}  // namespace attnlab::nn
