// detail::add_column_sums (nn/column_sums.hpp) against the scalar loop it
// replaced in the bias gradients: the same bytes (memcmp), for widths that
// are 4 registers, 1 register and a tail, and below one register, in float
// and double, over a strided block with values of mixed signs and
// magnitudes (so a change in the order of the adds would show).
#include "kernels/vector/column_sums.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

namespace attnlab::kernels::detail {
namespace {

template <class T>
void check(std::size_t rows, std::size_t n) {
  const std::size_t ld = n + 3;
  std::vector<T> src(rows * ld), got(n), want(n);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = T(std::sin(0.37 * double(i)) * std::pow(10.0, double(i % 7) - 3));
  for (std::size_t c = 0; c < n; ++c) got[c] = want[c] = T(0.1) * T(c);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < n; ++c) want[c] += src[r * ld + c];
  add_column_sums(got.data(), src.data(), ld, rows, n);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(T)), 0) << "rows " << rows << ", n " << n;
}

TEST(ColumnSums, EachColumnAddsItsRowsInOrder) {
  for (std::size_t rows : {1u, 2u, 7u, 64u, 513u})
    for (std::size_t n : {1u, 3u, 4u, 8u, 11u, 32u, 33u, 40u, 96u, 101u}) {
      check<float>(rows, n);
      check<double>(rows, n);
    }
}

TEST(ColumnSums, NoRowsLeaveTheSumsAlone) {
  std::vector<float> sums{1.5f, -2.0f, 3.25f}, src(3, 9.0f);
  add_column_sums(sums.data(), src.data(), 3, 0, 3);
  EXPECT_EQ(sums, (std::vector<float>{1.5f, -2.0f, 3.25f}));
}

}  // namespace
}  // namespace attnlab::kernels::detail
