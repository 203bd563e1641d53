// One product's rows split between threads without moving a single bit.
//
// OpenBLAS's sgemm kernels (the Haswell set blas_core.hpp pins) sum a row's
// terms in an order that depends on where the row falls in the kernel's
// blocks of rows: a product of rows [0, 2048) and one of [2048, 4096) give
// ~2 % of the elements of rows 2040..4095 other last bits than one product
// of all 4096 rows, because 2048 is not a multiple of the kernel's 12-row
// unroll. Cut at a multiple of 48 (the unrolls of sgemm and dgemm in the
// Haswell, Zen and SkylakeX sets are 2, 4, 6, 8, 12, 16 or 24 rows), and
// with no part of fewer than 48 rows, each part's rows are blocked as in the
// whole product and the output bytes are the whole product's
// (tests/tensor/row_share_test.cpp checks it at the projections' shapes,
// float and double; run with ATTNLAB_BLAS_CORETYPE=SkylakeX, Zen or
// Sandybridge it passes on those kernels too).
#pragma once

#include <cstddef>

namespace attnlab::tensor {

/// Which share of a product's rows a thread takes: part p of `parts` (p < parts).
struct RowShare {
  int part = 0;
  int parts = 1;
};

/// Rows are cut at multiples of this many.
inline constexpr std::size_t kRowShareQuantum = 48;

/// Rows [first, last) of `rows` for `share`: the parts tile [0, rows) in
/// order, every cut a multiple of kRowShareQuantum, sizes as even as whole
/// blocks of 48 allow, the rows past the last whole block going to the last
/// part. So a part is empty or holds at least 48 rows (or all of them, when
/// rows < 48): never a sliver of a few rows, which OpenBLAS would send down
/// another path (a 1-row product is a gemv on the SkylakeX kernels, with
/// other bits than the same row inside a larger product).
struct RowRange {
  std::size_t first, last;
  std::size_t size() const { return last - first; }
};
inline RowRange row_share(std::size_t rows, RowShare share) {
  const std::size_t blocks = rows / kRowShareQuantum;  // whole blocks; the rest joins the last part
  const auto cut = [&](int p) {
    if (p >= share.parts) return rows;
    return blocks * std::size_t(p) / std::size_t(share.parts) * kRowShareQuantum;
  };
  return {cut(share.part), cut(share.part + 1)};
}

}  // namespace attnlab::tensor
