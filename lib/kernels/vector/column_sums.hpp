// Column sums of a strided block added into a vector: the bias gradients of
// a linear layer and of attention's projections, db[c] += sum_r dout[r][c].
//
// Written out with xsimd because GCC at -O2 left the scalar loop scalar (it
// cannot rule out that the sums alias the block): the in-projection bias's
// sums over (B·T, 3C) were 2 % of a positions run's instructions (callgrind,
// mha_backward's own cost). Each column still takes its rows in order,
// r = 0, 1, ..., into the value it held, so the bytes are the scalar loop's
// (tests/kernels/column_sums_test.cpp compares them with memcmp); only which
// columns share a register changes.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstddef>

namespace attnlab::kernels::detail {

template <class T, int NV>
[[gnu::always_inline]] inline void add_column_sums_block(T* sums, const T* src, std::size_t ld, std::size_t rows) {
  using batch = xsimd::batch<T>;
  constexpr std::size_t W = batch::size;
  batch acc[NV];
  #pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) acc[v] = batch::load_unaligned(sums + v * W);
  for (std::size_t r = 0; r < rows; ++r)
    #pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[v] += batch::load_unaligned(src + r * ld + v * W);
  #pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) acc[v].store_unaligned(sums + v * W);
}

/// sums[c] += src[r · ld + c] summed over r < rows, in row order, for c < n.
/// sums must not overlap src.
template <class T>
void add_column_sums(T* sums, const T* src, std::size_t ld, std::size_t rows, std::size_t n) {
  constexpr std::size_t W = xsimd::batch<T>::size;
  std::size_t c = 0;
  for (; c + 4 * W <= n; c += 4 * W) add_column_sums_block<T, 4>(sums + c, src + c, ld, rows);  // 4 registers a pass
  for (; c + W <= n; c += W) add_column_sums_block<T, 1>(sums + c, src + c, ld, rows);
  for (; c < n; ++c) {
    T acc = sums[c];
    for (std::size_t r = 0; r < rows; ++r) acc += src[r * ld + c];
    sums[c] = acc;
  }
}

}  // namespace attnlab::kernels::detail
