// The pre-norm transformer block of course day 7 (data/course/17_block.py,
// 18_rnn_vs_attention.py):
//   x1  = x + MHA(LN1(x))                                  (attention dropout p)
//   out = x1 + Dropout(Linear2(GELU(Linear1(LN2(x1)))))     (Linear1: C -> 4C)
// Pre-norm as in Xiong et al. 2020 ("On Layer Normalization in the
// Transformer Architecture"); the sublayers are Vaswani et al. 2017 §3.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attention_cache.hpp"
#include "kernels/multihead_attention.hpp"
#include "random/generator.hpp"

namespace attnlab::kernels {

/// The shapes of one call: B batch, T length, C = d_model, H heads, F the
/// feed-forward width (4C in the course), dropout p (0.1 in the course).
/// causal: position i attends to positions 0 .. i only (the lower-triangular
/// mask of Vaswani et al. 2017 §3.2.3, applied before the softmax); shared by
/// the post-norm block (post_norm_block.hpp).
/// key_padding: (B, T), nonzero = position j of row b is padding and no
/// query attends to it (MultiheadAttention's key_padding_mask, True =
/// blocked); nullptr = none. The forward pass reads it; backward needs it not.
struct BlockDims {
  int B = 0, T = 0, C = 0, H = 0, F = 0;
  double dropout = 0.0;
  bool causal = false;
  const std::uint8_t* key_padding = nullptr;
};

/// The block's parameters, in PyTorch's registration order (norm1.weight,
/// norm1.bias, attn.in_proj_weight (3C, C), attn.in_proj_bias (3C),
/// attn.out_proj.weight (C, C), attn.out_proj.bias (C), norm2.weight,
/// norm2.bias, ff.0.weight (F, C), ff.0.bias (F), ff.2.weight (C, F),
/// ff.2.bias (C)). Used both for values and for gradients.
template <class Real>
struct PreNormTensors {
  Real *norm1_weight, *norm1_bias, *in_proj_weight, *in_proj_bias, *out_proj_weight, *out_proj_bias;
  Real *norm2_weight, *norm2_bias, *ff1_weight, *ff1_bias, *ff2_weight, *ff2_bias;
};

/// The names and shapes above, for registering in kernels::Parameters.
struct BlockParamSpec {
  const char* name;
  std::vector<int> shape;
};
std::vector<BlockParamSpec> pre_norm_block_param_specs(int C, int F);

/// Parameter count: 2·2C (norms) + 4C² + 4C (attention) + 2CF + F + C.
/// 12704 for C = 32, F = 128 (the course's script 17).
std::size_t pre_norm_block_param_count(int C, int F);

/// Initialises as PyTorch constructs the block after the generator's
/// current state: norm1 (no draws), attn (out_proj Linear, then xavier on
/// in_proj; docs/torch_rng.md §7), norm2, ff.0 = Linear(C, F), ff.2 = Linear(F, C).
void pre_norm_block_init(random::Generator& gen, const PreNormTensors<float>& w, int C, int F);

/// The block input's rows as copies of U distinct rows, x[r] = rows[idx[r]]
/// (a first block reading tok(x) + pos(t)): LN1 and the attention's
/// in-projection then run on the U rows only (nn/mha_distinct_rows.hpp). The
/// forward pass is the plain one's bytes where the products' sums do not
/// depend on the row count (floats on the sgemm tiles); in the backward pass
/// the in-projection's and LN1's gradients are their sums grouped by row.
template <class Real>
struct DistinctRows {
  const Real* rows = nullptr;         // (U, C)
  const std::int32_t* idx = nullptr;  // (B·T), each in [0, U)
  int U = 0;                          // 1 <= U <= B·T
  Real* table = nullptr;              // workspace, kernels::mha_distinct_table_size(U, C)
  Real* d_rows = nullptr;             // backward: (U, C), ADDED into: dx's part through LN1, per distinct row
};

/// Activations and scratch for batches up to max_batch, allocated once.
/// bytes() is what the constructor allocates, for sizing a run before it starts.
template <class Real>
struct PreNormWorkspace {
  static std::size_t bytes(int max_batch, int T, int C, int H, int F);
  PreNormWorkspace(int max_batch, int T, int C, int H, int F);
  int max_batch;
  std::vector<Real> h1, mean1, rstd1, a, x1, h2, mean2, rstd2, f1, dgelu1, g1, f2, mha_cache;  // forward (dgelu1: GELU'(f1))
  std::vector<std::uint8_t> keep_attn, keep_ff;                                       // dropout masks
  Real scale_attn = 1, scale_ff = 1;
  bool dropped = false;                                                               // masks in use
  std::vector<Real> dx1, df2, dg1, df1, dh2, dh1, mha_scratch;                         // backward
};

/// Forward pass: out (B, T, C) from x (B, T, C). With `train` non-null and
/// p > 0 the dropout masks are drawn from it in PyTorch's order (attention
/// weights (B, H, T, T), then the feed-forward output (B, T, C)); with
/// nullptr the block runs in evaluation mode. Throws std::invalid_argument
/// for a batch beyond the workspace or heads not dividing C.
template <class Real>
void pre_norm_block_forward(Real* out, PreNormWorkspace<Real>& ws, const Real* x, const PreNormTensors<Real>& w,
                               const BlockDims& d, random::Generator* train, const DistinctRows<Real>* rows = nullptr);

/// The same forward pass in two parts, so that a batch's masks can be drawn
/// once and its rows trained apart (training/split_step.hpp):
/// draw_masks draws what a training forward on d.B rows draws, in the same
/// order (nothing for p = 0); take_masks copies rows [first, first + d.B) of
/// another workspace's masks; forward_drawn runs with the masks the workspace
/// holds. pre_norm_block_forward(train) = draw_masks, then forward_drawn.
/// Throws std::invalid_argument for a batch beyond a workspace.
template <class Real>
void pre_norm_block_draw_masks(PreNormWorkspace<Real>& ws, const BlockDims& d, random::Generator& g);
template <class Real>
void pre_norm_block_take_masks(PreNormWorkspace<Real>& ws, const PreNormWorkspace<Real>& from, int first,
                                  const BlockDims& d);
/// With `rows` (DistinctRows), x must equal rows->rows[rows->idx[r]] row by
/// row (x still feeds the residual); std::invalid_argument for a U outside
/// [1, B·T] and std::out_of_range for an idx outside [0, U), before out is
/// written (the backward pass checks them too, before adding to anything).
template <class Real>
void pre_norm_block_forward_drawn(Real* out, PreNormWorkspace<Real>& ws, const Real* x, const PreNormTensors<Real>& w,
                                     const BlockDims& d, const DistinctRows<Real>* rows = nullptr);

/// Backward pass: ADDS dLoss/dx into dx (B, T, C) and the parameter
/// gradients into `grad`, given dout (B, T, C) and the workspace of the
/// forward pass on the same x. With `rows` (the forward's DistinctRows), the
/// part of dLoss/dx that passes through LN1 is added into rows->d_rows
/// instead, per distinct row (the sum over its copies); dx gets the rest.
template <class Real>
void pre_norm_block_backward(Real* dx, const PreNormTensors<Real>& grad, PreNormWorkspace<Real>& ws,
                                const Real* dout, const Real* x, const PreNormTensors<Real>& w, const BlockDims& d,
                                const DistinctRows<Real>* rows = nullptr);

/// Scratch of one pre_norm_block_step over B streams: the step's rows
/// (LN1, attention, residual, LN2, feed-forward) and the attention step's own.
std::size_t pre_norm_step_scratch_size(int B, int C, int H, int F, int max_len);

/// One step of the causal block in evaluation mode (no dropout), for a stream:
/// out (B, C) is row t of pre_norm_block_forward with d.causal on the
/// whole sequence, given x (B, C), this block's keys and values (B, L, C) with
/// t steps held (row t is written; kernels::attention_step), and w. d.T is unused;
/// d.B is the batch. Throws std::length_error when t >= max_len.
template <class Real>
void pre_norm_block_step(Real* out, Real* scratch, Real* keys, Real* values, int t, int max_len, const Real* x,
                            const PreNormTensors<Real>& w, const BlockDims& d);

}  // namespace attnlab::kernels
