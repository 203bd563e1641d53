// The post-norm transformer block of Vaswani et al. 2017 (§3.1, "LayerNorm(x +
// Sublayer(x))"; the FFN of eq. (2); dropout on each sub-layer's output before
// the addition, §5.4), exactly as PyTorch 1.13's
// nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
// activation="relu", batch_first=True, norm_first=False) computes it
// (torch/nn/modules/transformer.py):
//   a  = MHA(x, x, x)                       dropout p on the attention weights
//   y  = LN1(x + Dropout1(a))
//   f  = Linear2(Dropout(ReLU(Linear1(y))))
//   z  = LN2(y + Dropout2(f))
// It is the attention page's TransformerBlock (data/sources/attention_page.txt §4). The course's
// pre-norm block is pre_norm_block.hpp; both take BlockDims (with causal).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/pre_norm_block.hpp"
#include "kernels/multihead_attention.hpp"
#include "random/generator.hpp"

namespace attnlab::kernels {

/// The parameters in PyTorch's state_dict order: self_attn.in_proj_weight (3C, C),
/// self_attn.in_proj_bias (3C), self_attn.out_proj.weight (C, C),
/// self_attn.out_proj.bias (C), linear1.weight (F, C), linear1.bias (F),
/// linear2.weight (C, F), linear2.bias (C), norm1.weight, norm1.bias,
/// norm2.weight, norm2.bias (C each). Used for values and for gradients.
template <class Real>
struct PostNormTensors {
  Real *in_proj_weight, *in_proj_bias, *out_proj_weight, *out_proj_bias;
  Real *linear1_weight, *linear1_bias, *linear2_weight, *linear2_bias;
  Real *norm1_weight, *norm1_bias, *norm2_weight, *norm2_bias;
};

/// The names and shapes above, for kernels::Parameters.
std::vector<BlockParamSpec> post_norm_block_param_specs(int C, int F);

/// Initialises as TransformerEncoderLayer.__init__ builds its submodules after
/// the generator's current state: self_attn = MultiheadAttention(C, H) (out_proj
/// draws C·C + C words, xavier on in_proj 3C·C, biases zeroed), linear1 =
/// Linear(C, F) (F·C + F), dropout (none), linear2 = Linear(F, C) (C·F + C),
/// norm1, norm2 (ones and zeros, no draws).
void post_norm_block_init(random::Generator& gen, const PostNormTensors<float>& w, int C, int F);

/// Activations, dropout masks and backward scratch for up to max_batch
/// sequences of length T, allocated once.
template <class Real>
struct PostNormWorkspace {
  PostNormWorkspace(int max_batch, int T, int C, int H, int F);
  int max_batch, T;
  // forward: a (attention), s1 = x + drop1(a), y = LN1(s1), f1 = Linear1(y),
  // r = drop(relu(f1)), f2 = Linear2(r), s2 = y + drop2(f2)
  std::vector<Real> a, s1, y, mean1, rstd1, f1, r, f2, s2, mean2, rstd2, mha_cache;
  std::vector<std::uint8_t> keep_attn, keep1, keep_mid, keep2;  // PyTorch's draw order
  Real scale = 1;
  bool dropped = false;
  std::vector<Real> ds2, dy, df2, dr, df1, ds1, da, mha_scratch;  // backward
};

/// Forward pass: out (B, T, C) from x (B, T, C). With `train` non-null and
/// p > 0 the four dropout masks are drawn from it in PyTorch's order
/// (attention weights (B, H, T, T), dropout1 (B, T, C), the feed-forward's
/// middle dropout (B, T, F), dropout2 (B, T, C)); with nullptr the block runs
/// in evaluation mode. Throws std::invalid_argument for a batch or length
/// beyond the workspace or heads not dividing C.
template <class Real>
void post_norm_block_forward(Real* out, PostNormWorkspace<Real>& ws, const Real* x, const PostNormTensors<Real>& w,
                             const BlockDims& d, random::Generator* train);

/// Backward pass: ADDS dLoss/dx into dx (B, T, C) and the parameter gradients
/// into `grad`, given dout (B, T, C) and the workspace of the forward pass on x.
template <class Real>
void post_norm_block_backward(Real* dx, const PostNormTensors<Real>& grad, PostNormWorkspace<Real>& ws,
                              const Real* dout, const Real* x, const PostNormTensors<Real>& w, const BlockDims& d);

/// Scratch of post_norm_block_step over B streams.
std::size_t post_norm_step_scratch_size(int B, int C, int H, int F, int max_len);

/// One step of the causal block in evaluation mode: out (B, C) is row t of
/// post_norm_block_forward with d.causal over the whole sequence; keys and
/// values (B, L, C) hold t steps and get row t (kernels::attention_step). Throws
/// std::length_error when t >= max_len.
template <class Real>
void post_norm_block_step(Real* out, Real* scratch, Real* keys, Real* values, int t, int max_len, const Real* x,
                          const PostNormTensors<Real>& w, const BlockDims& d);

}  // namespace attnlab::kernels
