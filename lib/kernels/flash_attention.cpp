#include "kernels/flash_attention.hpp"

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/attention/flash_kernels.hpp"
#include "kernels/attention/mha_heads.hpp"
#include "kernels/attention/softmax_kernels.hpp"
#include "threads/phased_parts.hpp"

namespace attnlab::kernels {

namespace {

void check_threads(int threads) {
  if (threads < 1)
    throw std::invalid_argument("flash attention: threads must be >= 1 (got " + std::to_string(threads) + ")");
}

void check_blocks(FlashBlocks blocks) {
  if (blocks.q < 1 || blocks.k < 1)
    throw std::invalid_argument("flash attention: block sizes must be >= 1 (got q=" + std::to_string(blocks.q) +
                                ", k=" + std::to_string(blocks.k) + ")");
}

// The tile's parts: scores (bq, ld_s), m and l (bq each), then one head's
// keys transposed (D, ld_t); a tile of keys starting anywhere below S' reads
// at most kFlashColumnPad columns past S', which ld_t holds as zeros.
struct TileLayout {
  int ld_s, ld_t;
  std::size_t run_max, run_sum, keys_t, total;
};

TileLayout tile_layout(const MhaDims& d, FlashBlocks blocks) {
  TileLayout t;
  t.ld_s = detail::flash_padded(blocks.k);
  t.ld_t = detail::flash_padded(d.keys()) + detail::kFlashColumnPad;
  t.run_max = std::size_t(blocks.q) * t.ld_s;
  t.run_sum = t.run_max + blocks.q;
  t.keys_t = t.run_sum + blocks.q;
  t.total = t.keys_t + std::size_t(d.D) * t.ld_t;
  return t;
}

// The heads bh = b·H + h in [first, last), with one tile.
template <class T>
void forward_heads(T* workspace, T* tile, const MhaMasks<T>& masks, const MhaDims& d, FlashBlocks blocks, int first,
                   int last) {
  const int Tq = d.T, S_in = d.S, S = d.keys(), H = d.H, D = d.D;
  const MhaCacheLayout L = mha_cache_layout(d, false);
  const T* q = workspace + L.q;  // (B·T, C), row stride ld_q
  const T* k = workspace + L.k;  // (B·S', C), row stride ld_kv
  const T* v = workspace + L.v;  // (B·S', C), row stride ld_kv
  T* y = workspace + L.y;        // (B·T, C)
  const int bq = blocks.q, bk = blocks.k;
  const TileLayout TL = tile_layout(d, blocks);
  const int ld_s = TL.ld_s, ld_t = TL.ld_t;
  T* scores = tile;                  // (bq, ld_s): one tile of scores, then of weights
  T* run_max = tile + TL.run_max;    // (bq): m, the largest score seen per query row
  T* run_sum = tile + TL.run_sum;    // (bq): l, the sum of exp(score - m) so far
  T* keys_t = tile + TL.keys_t;      // (D, ld_t): this head's keys, transposed
  const T neg_inf = -std::numeric_limits<T>::infinity();
  // PyTorch divides q by sqrt(D); the weighted path divides each dot product:
  // a factor in the scores differs from both by rounding only
  const T inv_sqrt_d = T(1) / std::sqrt(T(D));
  const bool masked = detail::any_mask(masks);
  // rows of q, k, v, y: the stride from one query (key) to the next
  const int ld_q = int(L.q_i), ld_kv = int(L.kv_j), ld_y = int(L.y_i);

  for (int bh = first; bh < last; ++bh) {
    {  // head h of batch b
      const int b = bh / H, h = bh % H;
      const T* qh = q + b * L.q_b + h * D;   // q_i[e] = qh[i * ld_q + e]
      const T* kh = k + b * L.kv_b + h * D;  // k_j[e] = kh[j * ld_kv + e]
      const T* vh = v + b * L.kv_b + h * D;
      T* yh = y + b * L.y_b + h * D;          // y_i[e] = yh[i * ld_y + e]
      detail::pack_keys_transposed(keys_t, ld_t, kh, ld_kv, S, D);

      for (int i0 = 0; i0 < Tq; i0 += bq) {
        const int nq = std::min(bq, Tq - i0);
        for (int r = 0; r < nq; ++r) {
          run_max[r] = neg_inf;
          run_sum[r] = T(0);
          std::fill_n(yh + std::size_t(i0 + r) * ld_y, D, T(0));
        }

        for (int j0 = 0; j0 < S; j0 += bk) {
          int nk = std::min(bk, S - j0);
          // causal: input keys after the block's last query are blocked for every
          // row, so a tile of them is skipped and a tile across the diagonal is
          // cut short (not one holding appended keys, which every row sees)
          if (masks.causal && j0 + nk <= S_in) {
            if (j0 > i0 + nq - 1) continue;
            nk = std::min(nk, i0 + nq - j0);
          }

          // pass 1: scores (nq, nk) = q_block · k_block^T / sqrt(D), in whole
          // registers of keys (the columns past nk are computed and never read)
          detail::tile_scores(scores, ld_s, qh + std::size_t(i0) * ld_q, ld_q, keys_t + j0, ld_t, nq,
                              detail::flash_padded(nk), D, inv_sqrt_d);

          for (int r = 0; r < nq; ++r) {
            const int i = i0 + r;
            T* row = scores + std::size_t(r) * ld_s;
            // pass 2: masks, as the weighted path applies them (appended keys j >= S are never masked)
            if (masked) detail::mask_scores_row(row, i, b, h, j0, nk, masks, d);

            // pass 3: online softmax. m grows to m'; what was summed under m is
            // rescaled by exp(m - m') (0 while m = -inf, when nothing was visible yet)
            const T m_new = std::max(run_max[r], detail::row_max(row, nk));
            if (m_new == neg_inf) {  // nothing visible so far: this tile adds nothing
              std::fill_n(row, nk, T(0));
              continue;
            }
            const T sum = detail::exp_and_sum(row, nk, m_new);
            const T rescale = std::exp(run_max[r] - m_new);
            if (rescale != T(1)) {
              T* yi = yh + std::size_t(i) * ld_y;
              for (int e = 0; e < D; ++e) yi[e] *= rescale;
            }
            run_sum[r] = run_sum[r] * rescale + sum;
            run_max[r] = m_new;
          }

          // pass 4: y_block (nq, D) += P (nq, nk) · v_block (nk, D)
          detail::tile_mix(yh + std::size_t(i0) * ld_y, ld_y, scores, ld_s, vh + std::size_t(j0) * ld_kv, ld_kv, nq,
                           nk, D);
        }

        // pass 5: normalise; a row that never saw a visible key has l = 0 and y = 0
        for (int r = 0; r < nq; ++r) {
          if (run_sum[r] == T(0)) continue;
          const T inv = T(1) / run_sum[r];
          T* yi = yh + std::size_t(i0 + r) * ld_y;
          for (int e = 0; e < D; ++e) yi[e] *= inv;
        }
      }
    }
  }
}

// Heads are independent and each writes its own columns of y; part t of n
// takes a fixed run of them with its own tile, and a head's arithmetic is the
// same in any part, so y's bytes do not depend on the number of parts.
template <class T>
void heads_part(T* workspace, T* tile, const MhaMasks<T>& masks, const MhaDims& d, FlashBlocks blocks, int part,
                int parts) {
  const int heads = d.B * d.H;
  const auto first = [&](int t) { return int(std::int64_t(heads) * t / parts); };
  forward_heads<T>(workspace, tile + std::size_t(part) * tile_layout(d, blocks).total, masks, d, blocks, first(part),
                   first(part + 1));
}

// Parts for `threads`: no more than there are heads.
int parts_for(const MhaDims& d, int threads) { return std::min(threads, d.B * d.H); }

}  // namespace

std::size_t mha_flash_workspace_size(const MhaDims& d, FlashBlocks blocks, int threads) {
  check_blocks(blocks);
  check_threads(threads);
  return mha_cache_layout(d, false).total + std::size_t(threads) * tile_layout(d, blocks).total;
}

template <class T>
void flash_attention_forward(T* workspace, T* tile, const MhaMasks<T>& masks, const MhaDims& d, FlashBlocks blocks,
                             int threads) {
  check_blocks(blocks);
  check_threads(threads);
  const int parts = parts_for(d, threads);
  threads::run_parts_in_phases(parts, 1, [&](int, int part) { heads_part(workspace, tile, masks, d, blocks, part, parts); });
}

template <class T>
void mha_flash_forward(T* out, T* workspace, const T* query, const T* key, const T* value, const MhaMasks<T>& masks,
                       const MhaParams<T>& p, const MhaDims& d, FlashBlocks blocks, int threads) {
  check_blocks(blocks);
  check_threads(threads);
  mha_check_bias_kv(p, d);  // before any thread starts: the steps below cannot throw
  const MhaCacheLayout L = mha_cache_layout(d, false);
  // Three phases, every part in each: its share of the input projections' rows,
  // its run of heads, its share of the out-projection's rows. Shares cut at
  // multiples of 48 rows give the whole products' bytes (tensor/row_share.hpp),
  // so out does not depend on `threads` either.
  const int parts = parts_for(d, threads);
  threads::run_parts_in_phases(parts, 3, [&](int phase, int part) {
    const tensor::RowShare share{part, parts};
    if (phase == 0) mha_in_projection(workspace, L, query, key, value, p, d, share);
    if (phase == 1) heads_part(workspace, workspace + L.total, masks, d, blocks, part, parts);
    if (phase == 2) mha_out_projection(out, workspace + L.y, p, d, share);
  });
}

#define ATTNLAB_FLASH_INSTANTIATE(T)                                                                          \
  template void flash_attention_forward<T>(T*, T*, const MhaMasks<T>&, const MhaDims&, FlashBlocks, int);     \
  template void mha_flash_forward<T>(T*, T*, const T*, const T*, const T*, const MhaMasks<T>&, const MhaParams<T>&, \
                                     const MhaDims&, FlashBlocks, int);
ATTNLAB_FLASH_INSTANTIATE(float)
ATTNLAB_FLASH_INSTANTIATE(double)
#undef ATTNLAB_FLASH_INSTANTIATE

}  // namespace attnlab::kernels
