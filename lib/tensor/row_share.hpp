// One product's rows split between threads without moving a single bit.
//
// OpenBLAS's sgemm kernels (the Haswell set blas_core.hpp pins) sum a row's
// terms in an order that depends on where the row falls in the kernel's
// blocks of rows: a product of rows [0, 2048) and one of [2048, 4096) give
// ~2 % of the elements of rows 2040..4095 other last bits than one product
// of all 4096 rows, because 2048 is not a multiple of the kernel's 12-row
// unroll. Cut at a multiple of 48 (the unrolls of sgemm and dgemm in the
// Haswell, Zen and SkylakeX sets are 2, 4, 6, 8, 12, 16 or 24 rows), each
// part's rows are blocked as in the whole product and the output bytes are
// the whole product's (tests/tensor/row_share_test.cpp checks it for
// every shape attnlab uses, float and double).
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
/// order, every cut a multiple of kRowShareQuantum, sizes as even as that
/// allows (a part may be empty when rows < parts · 48).
struct RowRange {
  std::size_t first, last;
  std::size_t size() const { return last - first; }
};
inline RowRange row_share(std::size_t rows, RowShare share) {
  const std::size_t blocks = (rows + kRowShareQuantum - 1) / kRowShareQuantum;
  const auto cut = [&](int p) {
    if (p >= share.parts) return rows;
    const std::size_t at = blocks * std::size_t(p) / std::size_t(share.parts) * kRowShareQuantum;
    return at < rows ? at : rows;
  };
  return {cut(share.part), cut(share.part + 1)};
}

}  // namespace attnlab::tensor
