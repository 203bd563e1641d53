#include "nn/flash_attention.hpp"

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
#include <thread>
#include <type_traits>
#include <vector>

#include "nn/flash_kernels.hpp"

namespace attnlab::nn {

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

// max_j row[j] (n >= 1). Four registers of W lanes side by side: a single
// one would wait on each vmaxps's latency, and this loop and the next were
// a quarter of the kernel's time with one.
template <class T>
T row_max(const T* row, int n) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  T m = -std::numeric_limits<T>::infinity();
  int j = 0;
  if (n >= 4 * W) {
    batch a0 = batch::load_unaligned(row), a1 = batch::load_unaligned(row + W),
          a2 = batch::load_unaligned(row + 2 * W), a3 = batch::load_unaligned(row + 3 * W);
    for (j = 4 * W; j + 4 * W <= n; j += 4 * W) {
      a0 = xsimd::max(a0, batch::load_unaligned(row + j));
      a1 = xsimd::max(a1, batch::load_unaligned(row + j + W));
      a2 = xsimd::max(a2, batch::load_unaligned(row + j + 2 * W));
      a3 = xsimd::max(a3, batch::load_unaligned(row + j + 3 * W));
    }
    std::array<T, batch::size> lanes;
    xsimd::max(xsimd::max(a0, a1), xsimd::max(a2, a3)).store_unaligned(lanes.data());
    for (T x : lanes) m = x > m ? x : m;
  }
  for (; j < n; ++j) m = row[j] > m ? row[j] : m;
  return m;
}

// e^x for x <= 0, and 0 for x = -inf (a blocked score less the row's
// maximum). Cephes' expf (Moshier, cephes/single/expf.c): x = n ln 2 + r with
// |r| <= ln 2 / 2 in two steps, a degree-6 polynomial for e^r, 2^n put in
// the exponent bits; within 2 ulp, like xsimd::exp, in fewer instructions
// (no overflow branch, as x <= 0, and 2^n needs no ldexp since n >= -126
// once x is clamped). Below -87.34 (e^x < 2^-126) it gives 0, where the true
// value is subnormal: a weight that small is 0 next to the row's largest, 1.
// Doubles take xsimd::exp.
template <class T>
[[gnu::always_inline]] inline xsimd::batch<T> exp_nonpositive(xsimd::batch<T> x) {
  using batch = xsimd::batch<T>;
  if constexpr (!std::is_same_v<T, float>) {
    return xsimd::exp(x);
  } else {
    const batch lowest(-87.33654f);  // ln 2^-126
    const batch xc = xsimd::max(x, lowest);
    const batch n = xsimd::nearbyint(xc * batch(1.44269504088896341f));
    batch r = xsimd::fnma(n, batch(0.693359375f), xc);
    r = xsimd::fnma(n, batch(-2.12194440e-4f), r);
    batch p = xsimd::fma(batch(1.9875691500e-4f), r, batch(1.3981999507e-3f));
    p = xsimd::fma(p, r, batch(8.3334519073e-3f));
    p = xsimd::fma(p, r, batch(4.1665795894e-2f));
    p = xsimd::fma(p, r, batch(1.6666665459e-1f));
    p = xsimd::fma(p, r, batch(5.0000001201e-1f));
    p = xsimd::fma(p, r * r, r + batch(1.0f));
    using ints = xsimd::batch<std::int32_t>;
    const batch two_n = xsimd::bitwise_cast<batch>((xsimd::to_int(n) + ints(127)) << 23);
    return xsimd::select(x < lowest, batch(0.0f), p * two_n);
  }
}

// row[j] = exp(row[j] - m), returning their sum; exp(-inf) = 0 for blocked
// scores. Every element takes exp_nonpositive (the tail in one zero-padded
// register, as map_lanes does), so a weight does not depend on where the
// tile's edge falls; two sums side by side, for the adds' latency.
template <class T>
T exp_and_sum(T* row, int n, T m) {
  using batch = xsimd::batch<T>;
  constexpr int W = int(batch::size);
  const batch mb(m);
  batch s0(T(0)), s1(T(0));
  int j = 0;
  for (; j + 2 * W <= n; j += 2 * W) {
    const batch e0 = exp_nonpositive<T>(batch::load_unaligned(row + j) - mb);
    const batch e1 = exp_nonpositive<T>(batch::load_unaligned(row + j + W) - mb);
    e0.store_unaligned(row + j);
    e1.store_unaligned(row + j + W);
    s0 += e0;
    s1 += e1;
  }
  for (; j + W <= n; j += W) {
    const batch e = exp_nonpositive<T>(batch::load_unaligned(row + j) - mb);
    e.store_unaligned(row + j);
    s0 += e;
  }
  T sum = xsimd::hadd(s0 + s1);
  if (j < n) {
    std::array<T, batch::size> padded;
    padded.fill(-std::numeric_limits<T>::infinity());  // exp(-inf) = 0 beyond n
    std::copy_n(row + j, n - j, padded.data());
    exp_nonpositive<T>(batch::load_unaligned(padded.data()) - mb).store_unaligned(padded.data());
    for (int c = 0; c < n - j; ++c) {
      row[j + c] = padded[c];
      sum += padded[c];
    }
  }
  return sum;
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
  const bool masked = masks.key_padding || masks.attn_bool || masks.attn_float || masks.causal;
  const std::size_t mask_block = masks.attn_per_head ? std::size_t(Tq) * S_in : 0;
  // rows of q, k, v, y: the stride from one query (key) to the next
  const int ld_q = int(L.q_i), ld_kv = int(L.kv_j), ld_y = int(L.y_i);

  for (int bh = first; bh < last; ++bh) {
    {  // head h of batch b
      const int b = bh / H, h = bh % H;
      const T* qh = q + b * L.q_b + h * D;   // q_i[e] = qh[i * ld_q + e]
      const T* kh = k + b * L.kv_b + h * D;  // k_j[e] = kh[j * ld_kv + e]
      const T* vh = v + b * L.kv_b + h * D;
      T* yh = y + b * L.y_b + h * D;          // y_i[e] = yh[i * ld_y + e]
      const std::size_t mask_base = std::size_t(b * H + h) * mask_block;
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
            if (masked) {
              const std::size_t mask_row = mask_base + std::size_t(i) * S_in;
              int n_in = std::clamp(S_in - j0, 0, nk);  // input keys in this tile
              if (masks.causal) {  // keys j > i: the end of the row's input keys, without a test per key
                const int visible = std::clamp(i + 1 - j0, 0, n_in);
                std::fill(row + visible, row + n_in, neg_inf);
                n_in = visible;
              }
              if (masks.key_padding || masks.attn_bool || masks.attn_float)
                for (int c = 0; c < n_in; ++c) {
                  const int j = j0 + c;
                  const bool blocked = (masks.key_padding && masks.key_padding[std::size_t(b) * S_in + j]) ||
                                       (masks.attn_bool && masks.attn_bool[mask_row + j]);
                  if (blocked)
                    row[c] = neg_inf;
                  else if (masks.attn_float)
                    row[c] += masks.attn_float[mask_row + j];
                }
            }

            // pass 3: online softmax. m grows to m'; what was summed under m is
            // rescaled by exp(m - m') (0 while m = -inf, when nothing was visible yet)
            const T m_new = std::max(run_max[r], row_max(row, nk));
            if (m_new == neg_inf) {  // nothing visible so far: this tile adds nothing
              std::fill_n(row, nk, T(0));
              continue;
            }
            const T sum = exp_and_sum(row, nk, m_new);
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
  // Heads are independent and each writes its own columns of y; a thread
  // takes a fixed run of them with its own tile, and a head's arithmetic is
  // the same on any thread, so y's bytes do not depend on `threads`.
  const int heads = d.B * d.H;
  const int n = std::min(threads, heads);
  const std::size_t tile_size = tile_layout(d, blocks).total;
  const auto first = [&](int t) { return int(std::int64_t(heads) * t / n); };
  std::vector<std::thread> others;
  others.reserve(std::size_t(n - 1));
  for (int t = 1; t < n; ++t)
    others.emplace_back(forward_heads<T>, workspace, tile + std::size_t(t) * tile_size, std::cref(masks), std::cref(d),
                        blocks, first(t), first(t + 1));
  forward_heads<T>(workspace, tile, masks, d, blocks, 0, first(1));
  for (auto& th : others) th.join();
}

template <class T>
void mha_flash_forward(T* out, T* workspace, const T* query, const T* key, const T* value, const MhaMasks<T>& masks,
                       const MhaParams<T>& p, const MhaDims& d, FlashBlocks blocks, int threads) {
  check_blocks(blocks);
  check_threads(threads);
  const MhaCacheLayout L = mha_cache_layout(d, false);
  mha_in_projection(workspace, L, query, key, value, p, d);
  flash_attention_forward(workspace, workspace + L.total, masks, d, blocks, threads);
  mha_out_projection(out, workspace + L.y, p, d);
}

#define ATTNLAB_FLASH_INSTANTIATE(T)                                                                          \
  template void flash_attention_forward<T>(T*, T*, const MhaMasks<T>&, const MhaDims&, FlashBlocks, int);     \
  template void mha_flash_forward<T>(T*, T*, const T*, const T*, const T*, const MhaMasks<T>&, const MhaParams<T>&, \
                                     const MhaDims&, FlashBlocks, int);
ATTNLAB_FLASH_INSTANTIATE(float)
ATTNLAB_FLASH_INSTANTIATE(double)
#undef ATTNLAB_FLASH_INSTANTIATE

}  // namespace attnlab::nn
