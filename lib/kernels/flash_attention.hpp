// Multi-head attention forward without the (T, S') weights: the flash-style
// path for inference (need_weights = False, no dropout, no backward to follow).
//
// The weighted path (nn/multihead_attention.hpp) writes the B·H·T·S' softmax
// weights, 8.6 GB at B = 8, H = 4, T = S = 8192. Here each head's queries are
// taken a block of rows at a time against blocks of keys; one product per
// tile gives the scores q·k^T / sqrt(D), and an online softmax (a running
// maximum m and a running sum l per query row, rescaling the partial output
// whenever m grows) lets one product per tile add P·v into y, so that no row
// of weights is ever whole. The two products are register-blocked loops
// (nn/flash_kernels.hpp says why not cblas at head sizes of 16). Memory is
// the projections and y, O(T·C), plus one tile and one head's keys, O(S·D).
//   Milakov & Gimelshein 2018, "Online normalizer calculation for softmax", alg. 3;
//   Dao et al. 2022, "FlashAttention", alg. 1 (the forward pass);
//   PyTorch 2.x's CPU kernel (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp)
//   tiles the same way, query blocks of 32–256 against key blocks of 512.
//
// Same results as mha_forward with MhaWeights::none and no dropout, up to
// float rounding (the exponentials and the order of the sums differ; the
// tests hold them within 1e-5): the same masks, the same appended keys, and
// the same rule for a query row whose keys are all blocked: y = 0, so its
// output is out_proj.bias (PyTorch 1.13 gives NaN there).
#pragma once

#include <cstddef>

#include "kernels/multihead_attention.hpp"

namespace attnlab::kernels {

/// Tile sizes: rows of queries and of keys per tile (both >= 1). The scores
/// of one tile, q rows × k rows floats, stay in L2 (64 × 512 × 4 B = 128 KiB).
struct FlashBlocks {
  int q = 64;
  int k = 512;
};

/// Elements of the workspace mha_flash_forward uses: q, k, v and y laid out as
/// mha_cache_layout(d, false) says (B·T·C + 2·B·S'·C + B·T·C), then one tile of
/// scores (blocks.q rows of blocks.k rounded up to 8), the running maximum and
/// sum (2 · blocks.q), and one head's keys transposed (D rows of S' rounded up
/// to 8, plus 8).
/// With threads > 1, one tile and one head's keys per thread.
/// Throws std::invalid_argument when a block size or threads is < 1.
std::size_t mha_flash_workspace_size(const MhaDims& d, FlashBlocks blocks = {}, int threads = 1);

/// Forward pass of multi-head attention with no weights returned and no dropout
/// (inference):
///   out        (B, T, C) batch-first, else (T, B, C)
///   workspace  mha_flash_workspace_size(d, blocks) elements, overwritten
///   query (B, T, C), key (B, S, kdim), value (B, S, vdim), or sequence-first;
///   masks, p, d: as mha_forward (every mask, every MhaVariant option)
/// The same product fusions as mha_forward (one (B·T, C)·(C, 3C) product for
/// self-attention with packed weights).
///   threads    the work is split into that many fixed parts (no more than
///              B·H), one thread each (the caller's thread takes the first):
///              each part's share of the projections' rows, cut at multiples
///              of 48 (tensor/row_share.hpp), then its run of heads; the
///              output's bytes are the same for every value. No heap
///              allocation with threads = 1; the further parts run on
///              helper threads the calling thread keeps from call to call
///              (threads/phased_parts.hpp), allocated on its first call.
/// Throws std::invalid_argument for a block size or threads < 1, or when
/// add_bias_kv lacks bias_k / bias_v.
/// Source: PyTorch 1.13 multi_head_attention_forward (what is computed);
/// Dao et al. 2022, algorithm 1 (how).
template <class T>
void mha_flash_forward(T* out, T* workspace, const T* query, const T* key, const T* value, const MhaMasks<T>& masks,
                       const MhaParams<T>& p, const MhaDims& d, FlashBlocks blocks = {}, int threads = 1);

/// The kernel beneath, after the projections: for every batch b and head h,
///   y[b,i,h] = sum_j softmax_j(q[b,i,h]·k[b,j,h] / sqrt(D) + mask)[j] v[b,j,h]
/// with q, k, v, y where mha_cache_layout(d, false) puts them in `workspace`
/// (row strides ld_q, ld_kv, C; rows in the inputs' layout), blocked scores
/// -inf, and y = 0 on a row with every key blocked.
///   tile: the workspace's elements past mha_cache_layout(d, false).total
///         (mha_flash_workspace_size(d, blocks, threads) says how many), overwritten
///   threads: as mha_flash_forward
template <class T>
void flash_attention_forward(T* workspace, T* tile, const MhaMasks<T>& masks, const MhaDims& d, FlashBlocks blocks,
                             int threads = 1);

}  // namespace attnlab::kernels
