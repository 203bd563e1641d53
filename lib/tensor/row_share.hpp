// One product's rows split between threads without moving a single bit.
//
// OpenBLAS's sgemm kernels (the Haswell set openblas.hpp pins) sum a row's
// terms in an order that depends on where the row falls in the kernel's
// blocks of rows: a product of rows [0, 2048) and one of [2048, 4096) give
// ~2 % of the elements of rows 2040..4095 other last bits than one product
// of all 4096 rows, while cuts at 2016, 2040, 2052 or 2064 (multiples of
// 12) change nothing. Cut at a multiple of 48, with no part of fewer than 48
// rows, the output bytes are the whole product's: measured, not derived
// from OpenBLAS's sources, by tests/tensor/row_share_test.cpp at the
// projections' shapes, float and double, on the Haswell kernels and, run
// with ATTNLAB_BLAS_CORETYPE=SkylakeX, Zen or Sandybridge, on those too.
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
/// rows < 48): never a sliver of a few rows (on the SkylakeX kernels a
/// 1-row product gave other bits than the same row inside a larger one).
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
