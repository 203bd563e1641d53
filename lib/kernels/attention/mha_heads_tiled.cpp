// The per-head loops of multi-head attention in tiles: a block of up to 64
// query rows of one head against all of its keys (nn/mha_heads.hpp says why,
// and what they are held equal to).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/attention/flash_kernels.hpp"
#include "kernels/attention/head_softmax_rows.hpp"
#include "kernels/attention/mha_heads.hpp"
#include "kernels/attention/softmax_kernels.hpp"

namespace attnlab::kernels {

namespace {

// Query rows per block: the block of scores (64 × S' padded) stays in L2 up
// to S' of a few thousand; the course's T = 8 is one block.
constexpr int kQueryBlock = 64;

struct HeadTiles {
  int bq;    // query rows per block
  int ld_t;  // S' padded to whole registers: the row stride of scores and of kT / vT
};

HeadTiles head_tiles(const MhaDims& d) { return {std::min(d.T, kQueryBlock), detail::flash_padded(d.keys())}; }

// Whether the forward takes a head's tile by columns: float under AVX2, 8
// queries against 8 keys (the course's T = 8), one register each way. The
// scores are then computed transposed (keys as rows; the same products and
// sums, so the same bytes) and the softmax runs down the columns
// (nn/head_softmax_rows.hpp, softmax_dropout_columns_8x8). Masks keep the
// rows: they are laid out by query.
template <class T>
bool columns_tile(const MhaDims& d) {
#if defined(__AVX2__)
  return std::is_same_v<T, float> && d.T == 8 && d.keys() == 8;
#else
  (void)d;
  return false;
#endif
}

template <class T>
void columns_softmax_dropout(T* scores, T* att, const std::uint8_t* keep, T scale) {
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) detail::softmax_dropout_columns_8x8(scores, 8, scores, 8, att, keep, scale);
#endif
  (void)scores, (void)att, (void)keep, (void)scale;
}

}  // namespace

std::size_t mha_forward_tile_size(const MhaDims& d) {
  const HeadTiles G = head_tiles(d);
  return std::size_t(d.D) * G.ld_t + std::size_t(G.bq) * G.ld_t;  // kT, scores
}

std::size_t mha_backward_tile_size(const MhaDims& d) {
  const HeadTiles G = head_tiles(d);
  return std::size_t(d.D) * G.ld_t + std::size_t(G.bq) * G.ld_t + 2 * std::size_t(G.ld_t) * G.bq;  // vT, dP, P'^T, dS^T
}

template <class T>
void mha_heads_forward(T* cache, const MhaCacheLayout& L, T* weights, MhaWeights which, const MhaMasks<T>& masks,
                       const MhaDropout<T>& dropout, const MhaDims& d) {
  const int B = d.B, Tq = d.T, S = d.keys(), H = d.H, D = d.D;
  const HeadTiles G = head_tiles(d);
  const int ld_t = G.ld_t;
  const T* q = cache + L.q;  // (B·T, C), row stride ld_q
  const T* k = cache + L.k;  // (B·S', C), row stride ld_kv
  const T* v = cache + L.v;  // (B·S', C), row stride ld_kv
  T* att = cache + L.att;    // (B, H, T, S') softmax weights before dropout
  T* y = cache + L.y;        // (B·T, C) heads concatenated
  T* keys_t = cache + L.tile;                    // (D, ld_t): this head's keys, transposed
  T* scores = keys_t + std::size_t(D) * ld_t;   // (bq, ld_t): a block's scores, then P'
  if (weights == nullptr) which = MhaWeights::none;
  // PyTorch divides q by sqrt(D) before the product; a factor on the scores
  // differs from that by rounding only (as the flash forward does)
  const T inv_sqrt_d = T(1) / std::sqrt(T(D));
  const bool masked = detail::any_mask(masks);
  const int ld_q = int(L.q_i), ld_kv = int(L.kv_j), ld_y = int(L.y_i);

  const bool by_columns = columns_tile<T>(d) && !masked;

  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const T* qh = q + b * L.q_b + h * D;   // q_i[e] = qh[i * ld_q + e]
      const T* kh = k + b * L.kv_b + h * D;  // k_j[e] = kh[j * ld_kv + e]
      const T* vh = v + b * L.kv_b + h * D;
      T* yh = y + b * L.y_b + h * D;         // y_i[e] = yh[i * ld_y + e]
      if (!by_columns) detail::pack_keys_transposed(keys_t, ld_t, kh, ld_kv, S, D);

      for (int i0 = 0; i0 < Tq; i0 += G.bq) {
        const int nq = std::min(G.bq, Tq - i0);
        const std::size_t block_index = (std::size_t(b * H + h) * Tq + i0) * S;
        const std::uint8_t* keep = dropout.keep ? dropout.keep + block_index : nullptr;
        if (by_columns) {
          // the 8 x 8 tile by columns: scores^T (S, T) = k · q^T / sqrt(D), each element the
          // same chain of multiply-adds over e as by rows, then the softmax down the columns
          detail::pack_keys_transposed(keys_t, ld_t, qh, ld_q, Tq, D);  // here q^T (D, 8)
          detail::tile_scores(scores, ld_t, kh, ld_kv, keys_t, ld_t, S, ld_t, D, inv_sqrt_d);
          columns_softmax_dropout(scores, att + block_index, keep, dropout.scale);
        } else {
          // pass 1: scores (nq, S') = q_block · k^T / sqrt(D), whole registers of keys
          detail::tile_scores(scores, ld_t, qh + std::size_t(i0) * ld_q, ld_q, keys_t, ld_t, nq, ld_t, D,
                              inv_sqrt_d);

          // pass 2: masks, then the softmax (a row with every key blocked becomes zeros), P to att;
          // pass 3: P' = P after dropout, in place; the returned weights are P' (as PyTorch 1.13 returns them)
          if (masked)
            for (int r = 0; r < nq; ++r)
              detail::mask_scores_row(scores + std::size_t(r) * ld_t, i0 + r, b, h, 0, S, masks, d);
          detail::softmax_dropout_rows(scores, ld_t, nq, S, att + block_index, keep, dropout.scale);
        }
        if (which != MhaWeights::none)
          for (int r = 0; r < nq; ++r) {
            const T* row = scores + std::size_t(r) * ld_t;
            if (which == MhaWeights::per_head)
              std::copy_n(row, S, weights + block_index + std::size_t(r) * S);
            else
              for (int j = 0; j < S; ++j) weights[(std::size_t(b) * Tq + i0 + r) * S + j] += row[j];
          }

        // pass 4: y_block (nq, D) = P' (nq, S') · v (S', D)
        detail::tile_mix<T, false>(yh + std::size_t(i0) * ld_y, ld_y, scores, ld_t, vh, ld_kv, nq, S, D);
      }
    }
}

template <class T>
void mha_heads_backward(T* grads, const T* dy, T* tile, const T* cache, const MhaCacheLayout& L,
                        const MhaDropout<T>& dropout, const MhaDims& d) {
  const int B = d.B, Tq = d.T, S = d.keys(), H = d.H, D = d.D;
  const HeadTiles G = head_tiles(d);
  const int ld_t = G.ld_t, bq = G.bq;
  const T* q = cache + L.q;
  const T* k = cache + L.k;
  const T* v = cache + L.v;
  const T* att = cache + L.att;
  T* dq = grads + L.q;
  T* dk = grads + L.k;
  T* dv = grads + L.v;
  T* values_t = tile;                                // (D, ld_t): this head's values, transposed
  T* dp = values_t + std::size_t(D) * ld_t;          // (bq, ld_t): dP' of a block, then dS
  T* p_t = dp + std::size_t(bq) * ld_t;              // (S', bq): P'^T of the block
  T* ds_t = p_t + std::size_t(ld_t) * bq;            // (S', bq): dS^T of the block
  const T inv_sqrt_d = T(1) / std::sqrt(T(D));
  const int ld_q = int(L.q_i), ld_kv = int(L.kv_j), ld_y = int(L.y_i);

  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const T* qh = q + b * L.q_b + h * D;
      const T* kh = k + b * L.kv_b + h * D;
      const T* vh = v + b * L.kv_b + h * D;
      const T* dyh = dy + b * L.y_b + h * D;
      T* dqh = dq + b * L.q_b + h * D;
      T* dkh = dk + b * L.kv_b + h * D;
      T* dvh = dv + b * L.kv_b + h * D;
      detail::pack_keys_transposed(values_t, ld_t, vh, ld_kv, S, D);

      for (int i0 = 0; i0 < Tq; i0 += bq) {
        const int nq = std::min(bq, Tq - i0);
        const T* dy_block = dyh + std::size_t(i0) * ld_y;
        const T* q_block = qh + std::size_t(i0) * ld_q;
        // pass 1: dP' (nq, S') = dy_block · v^T
        detail::tile_scores(dp, ld_t, dy_block, ld_y, values_t, ld_t, nq, ld_t, D, T(1));

        // pass 2: through dropout, dP = dP' · keep · scale, and P' = P · keep · scale (as P'^T);
        // pass 3: through the softmax and the 1/sqrt(D): dS = P (dP - sum_k P_k dP_k) / sqrt(D) (and dS^T)
        const std::size_t block_index = (std::size_t(b * H + h) * Tq + i0) * S;
        detail::softmax_backward_rows(dp, ld_t, nq, S, att + block_index,
                                      dropout.keep ? dropout.keep + block_index : nullptr, dropout.scale,
                                      inv_sqrt_d, p_t, ds_t, bq);

        // pass 4: dv (S', D) += P'^T · dy_block;  dq_block = dS · k;  dk (S', D) += dS^T · q_block,
        // the first block writing dv and dk (each chain starts at 0, as if added into zeros)
        detail::tile_mix<T, false>(dqh + std::size_t(i0) * ld_q, ld_q, dp, ld_t, kh, ld_kv, nq, S, D);
        if (i0 == 0) {
          detail::tile_mix<T, false>(dvh, ld_kv, p_t, bq, dy_block, ld_y, S, nq, D);
          detail::tile_mix<T, false>(dkh, ld_kv, ds_t, bq, q_block, ld_q, S, nq, D);
        } else {
          detail::tile_mix(dvh, ld_kv, p_t, bq, dy_block, ld_y, S, nq, D);
          detail::tile_mix(dkh, ld_kv, ds_t, bq, q_block, ld_q, S, nq, D);
        }
      }
    }
}

#define ATTNLAB_MHA_HEADS_TILED(T)                                                                              \
  template void mha_heads_forward<T>(T*, const MhaCacheLayout&, T*, MhaWeights, const MhaMasks<T>&,              \
                                     const MhaDropout<T>&, const MhaDims&);                                     \
  template void mha_heads_backward<T>(T*, const T*, T*, const T*, const MhaCacheLayout&, const MhaDropout<T>&,   \
                                      const MhaDims&);
ATTNLAB_MHA_HEADS_TILED(float)
ATTNLAB_MHA_HEADS_TILED(double)
#undef ATTNLAB_MHA_HEADS_TILED

}  // namespace attnlab::kernels
