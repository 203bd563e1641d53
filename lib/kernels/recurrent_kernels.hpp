// Building blocks shared by rnn.cpp, gru.cpp and lstm.cpp (and
// embedded_input.cpp's fill_rows). Internal: it includes xsimd, so only
// those files include it.
//
// Layouts. The input projection of all steps is one product with rows in
// batch-major order (b, t), so step t's rows of a (B, T, C) tensor are T·C
// apart. The elementwise gate maths wants long contiguous runs (xsimd's sigmoid
// and tanh cost about 1 ns per element against 20-30 ns for scalar tanhf, and
// with H = 2 a row of one gate is shorter than one SIMD register), so each
// step's gates are moved into gate-major (G, B, H) blocks: every gate of the
// whole batch is one contiguous run of B·H values.
//
// Alignment. Caches and scratch are carved into blocks that each start on a
// 64-byte boundary, with per-step slices B·H rounded up to 16 elements apart,
// so every gate run starts on a cache line. Results never depend on it: the
// elementwise maths goes through nn/lanewise.hpp, where every element takes
// the same instructions wherever it lies.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/vector/lanewise.hpp"
#include "tensor/transpose_kernels.hpp"

namespace attnlab::kernels::detail {

/// Block granularity in elements: 64 bytes of float (128 of double).
inline constexpr std::size_t kPad = 16;

/// n rounded up to a multiple of kPad.
inline constexpr std::size_t padded(std::size_t n) { return (n + kPad - 1) / kPad * kPad; }

/// Hands out consecutive blocks of one caller-provided buffer, each on a
/// 64-byte boundary. Constructed with a null base it only counts: size()
/// is then the number of elements a buffer needs for the same blocks
/// (kPad elements of slack let the first block be aligned wherever the
/// caller's buffer starts).
template <class R>  // R = Real or const Real
class Carver {
 public:
  explicit Carver(R* base) : base_(base) {
    if (base_) {
      const auto u = reinterpret_cast<std::uintptr_t>(base_);
      base_ += ((64 - u % 64) % 64) / sizeof(R);  // float/double buffers are element-aligned
    }
  }
  R* take(std::size_t n) {
    R* block = base_ ? base_ + used_ : nullptr;
    used_ += padded(n);
    return block;
  }
  std::size_t size() const { return used_ + kPad; }

 private:
  R* base_;
  std::size_t used_ = 0;
};

/// dst[0..n) = sigmoid(src[0..n)) = 1 / (1 + exp(-src)), the form of
/// PyTorch's vectorised sigmoid. dst and src must not overlap.
template <class Real>
inline void sigmoid_into(Real* dst, const Real* src, std::size_t n) {
  map_lanes(dst, n, [](auto x) { return Real(1) / (Real(1) + xsimd::exp(-x)); }, src);
}

/// dst[0..n) = tanh(src[0..n)). dst and src must not overlap.
template <class Real>
inline void tanh_into(Real* dst, const Real* src, std::size_t n) {
  map_lanes(dst, n, [](auto x) { return xsimd::tanh(x); }, src);
}

/// d[0..n) = s[0..n). Rows of a hidden size of 2 to 8 are shorter than the
/// cost of a call to memcpy, which dominated the copies at those sizes.
template <class Real>
inline void copy_row(Real* __restrict d, const Real* __restrict s, int n) {
  if (n <= 8) {
    for (int j = 0; j < n; ++j) d[j] = s[j];
  } else {
    std::memcpy(d, s, sizeof(Real) * n);
  }
}

/// Gate-major gather of one step: for k < K, gate k's block of P (B, H) starts
/// at P + k·ldp and
///   P[k·ldp + b·H + :H] = A[b·lda + k·H + :H] (+ Bm[b·ldb + k·H + :H] when Bm).
template <class Real>
inline void gather_gates(Real* __restrict P, std::size_t ldp, const Real* __restrict A,
                         std::size_t lda, const Real* __restrict Bm, std::size_t ldb, int B, int K,
                         int H) {
  for (int k = 0; k < K; ++k) {
    for (int b = 0; b < B; ++b) {
      Real* p = P + k * ldp + static_cast<std::size_t>(b) * H;
      const Real* a = A + b * lda + static_cast<std::size_t>(k) * H;
      if (Bm) {
        const Real* m = Bm + b * ldb + static_cast<std::size_t>(k) * H;
        for (int j = 0; j < H; ++j) p[j] = a[j] + m[j];
      } else {
        copy_row(p, a, H);
      }
    }
  }
}

/// dst (cols, rows) = src (rows, cols)^T, both dense: a recurrent weight
/// (G·H, H) turned (H, G·H) so each step's product reads it as stored.
/// 8 × 8 register transposes where both sizes are multiples of 8 (floats).
template <class Real>
inline void transpose_into(Real* __restrict dst, const Real* __restrict src, int rows, int cols) {
#if defined(__AVX2__)
  if constexpr (std::is_same_v<Real, float>) {
    if (rows % 8 == 0 && cols % 8 == 0) {
      for (int r = 0; r < rows; r += 8)
        for (int c = 0; c < cols; c += 8)
          tensor::detail::transpose_8x8(dst + static_cast<std::size_t>(c) * rows + r, rows,
                                        src + static_cast<std::size_t>(r) * cols + c, cols);
      return;
    }
  }
#endif
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      dst[static_cast<std::size_t>(c) * rows + r] = src[static_cast<std::size_t>(r) * cols + c];
}

/// Inverse of gather_gates without the sum: A[b·lda + k·H + :H] = P[k·ldp + b·H + :H].
template <class Real>
inline void scatter_gates(Real* __restrict A, std::size_t lda, const Real* __restrict P,
                          std::size_t ldp, int B, int K, int H) {
  for (int k = 0; k < K; ++k)
    for (int b = 0; b < B; ++b)
      copy_row(A + b * lda + static_cast<std::size_t>(k) * H,
               P + k * ldp + static_cast<std::size_t>(b) * H, H);
}

/// dst (B, T, C) [b, t, :] = src (B, C) [b, :].
template <class Real>
inline void put_step(Real* dst, const Real* src, int B, int T, int t, int C) {
  for (int b = 0; b < B; ++b)
    copy_row(dst + (static_cast<std::size_t>(b) * T + t) * C, src + static_cast<std::size_t>(b) * C,
             C);
}

/// dst (B, C) [b, :] = src (B, T, C) [b, t, :].
template <class Real>
inline void take_step(Real* dst, const Real* src, int B, int T, int t, int C) {
  for (int b = 0; b < B; ++b)
    copy_row(dst + static_cast<std::size_t>(b) * C, src + (static_cast<std::size_t>(b) * T + t) * C,
             C);
}

/// Every row of out (N, C) = bias (+ bias2 when not null).
template <class Real>
inline void fill_rows(Real* __restrict out, const Real* bias, const Real* bias2, int N, int C) {
  Real* first = out;
  for (int c = 0; c < C; ++c) first[c] = bias2 ? bias[c] + bias2[c] : bias[c];
  for (int n = 1; n < N; ++n) std::memcpy(out + static_cast<std::size_t>(n) * C, first, sizeof(Real) * C);
}

/// d1 (C) += column sums of A (N, C), and d2 (C) += the same sums; either may
/// be null. Rows are read in order (a column walk would stride through the
/// whole matrix), summing a block of 64 columns at a time.
template <class Real>
inline void add_column_sums(Real* d1, Real* d2, const Real* A, int N, int C) {
  if (!d1 && !d2) return;
  constexpr int kBlock = 64;
  for (int c0 = 0; c0 < C; c0 += kBlock) {
    const int width = C - c0 < kBlock ? C - c0 : kBlock;
    Real s[kBlock] = {};
    for (int n = 0; n < N; ++n) {
      const Real* row = A + static_cast<std::size_t>(n) * C + c0;
      for (int c = 0; c < width; ++c) s[c] += row[c];
    }
    for (int c = 0; c < width; ++c) {
      if (d1) d1[c0 + c] += s[c];
      if (d2) d2[c0 + c] += s[c];
    }
  }
}

/// hprev (B, T, H) [b, t, :] = h_{t-1}[b, :] from the time-major hidden states
/// h (T, B, H) with steps `step` elements apart, zero at t = 0: the right operand
/// of dW_hh = Σ_t dgates_t^T · h_{t-1} as one product over all B·T rows.
template <class Real>
inline void previous_hidden(Real* hprev, const Real* h, std::size_t step, int B, int T, int H) {
  for (int b = 0; b < B; ++b) {
    Real* row = hprev + static_cast<std::size_t>(b) * T * H;
    std::memset(row, 0, sizeof(Real) * H);
    for (int t = 1; t < T; ++t)
      copy_row(row + static_cast<std::size_t>(t) * H,
               h + (t - 1) * step + static_cast<std::size_t>(b) * H, H);
  }
}

}  // namespace attnlab::kernels::detail
