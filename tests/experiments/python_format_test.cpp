// Python's and PyTorch's printing, against strings printed by CPython 3 and
// PyTorch 1.13 (repr(x), str(tuple(shape)), str(tensor.int())).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "experiments/python_format.hpp"

namespace attnlab::experiments {
namespace {

TEST(PythonFormat, FloatReprIsPythons) {
  EXPECT_EQ(py_float(2.0), "2.0");
  EXPECT_EQ(py_float(-3.0), "-3.0");
  EXPECT_EQ(py_float(-0.0), "-0.0");
  EXPECT_EQ(py_float(0.1), "0.1");
  EXPECT_EQ(py_float(0.0001), "0.0001");
  EXPECT_EQ(py_float(1e-05), "1e-05");
  EXPECT_EQ(py_float(1.5e-7), "1.5e-07");
  EXPECT_EQ(py_float(1e15), "1000000000000000.0");
  EXPECT_EQ(py_float(1e16), "1e+16");
  EXPECT_EQ(py_float(123456789.125), "123456789.125");
  EXPECT_EQ(py_float(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(py_float(std::numeric_limits<double>::quiet_NaN()), "nan");
  // float32 0.575 as .tolist() shows it
  EXPECT_EQ(py_float(static_cast<double>(0.575f)), "0.574999988079071");
  EXPECT_EQ(py_float_list({0.5, 2.0}), "[0.5, 2.0]");
  EXPECT_EQ(py_float_list({}), "[]");
}

TEST(PythonFormat, ShapeTuple) {
  EXPECT_EQ(py_shape({2, 6, 32}), "(2, 6, 32)");
  EXPECT_EQ(py_shape({5}), "(5,)");
  EXPECT_EQ(py_shape({}), "()");
}

TEST(PythonFormat, JoinFormatted) {
  const float v[] = {0.125f, 1.0f, -0.5f};
  EXPECT_EQ(join_formatted("%.2f", v, 3), "0.12 1.00 -0.50");  // 0.125 is exact: C rounds half to even
  EXPECT_EQ(join_formatted("%+.1f", v, 3), "+0.1 +1.0 -0.5");
  EXPECT_EQ(join_formatted("%.3f", v, 0), "");
}

std::vector<std::int64_t> arange(std::int64_t from, std::size_t n) {
  std::vector<std::int64_t> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

TEST(PythonFormat, IntTensorPadsToTheWidestElement) {
  EXPECT_EQ(torch_int_matrix_str({1, -12, 3}, 1, 3, "torch.int32"), "tensor([[  1, -12,   3]], dtype=torch.int32)");
  EXPECT_EQ(torch_int_matrix_str({7}, 1, 1, ""), "tensor([[7]])");  // int64 prints no dtype
}

TEST(PythonFormat, IntTensorWrapsRowsAtEightyColumns) {
  // str(torch.arange(40).reshape(2, 20).int()): 18 elements of width 2 per line
  EXPECT_EQ(torch_int_matrix_str(arange(0, 40), 2, 20, "torch.int32"),
            "tensor([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "         18, 19],\n"
            "        [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,\n"
            "         38, 39]], dtype=torch.int32)");
}

TEST(PythonFormat, IntTensorMovesTheDtypeToItsOwnLineWhenTheLastIsFull) {
  // str(torch.arange(36).reshape(2, 18).int()) and without .int()
  EXPECT_EQ(torch_int_matrix_str(arange(0, 36), 2, 18, "torch.int32"),
            "tensor([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17],\n"
            "        [18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35]],\n"
            "       dtype=torch.int32)");
  EXPECT_EQ(torch_int_matrix_str(arange(0, 36), 2, 18, ""),
            "tensor([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17],\n"
            "        [18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35]])");
}

TEST(PythonFormat, IntTensorSummarisesAboveAThousandElements) {
  // str(torch.arange(-600, 600).reshape(30, 40).int()): the width counts only
  // the elements shown
  EXPECT_EQ(torch_int_matrix_str(arange(-600, 1200), 30, 40, "torch.int32"),
            "tensor([[-600, -599, -598,  ..., -563, -562, -561],\n"
            "        [-560, -559, -558,  ..., -523, -522, -521],\n"
            "        [-520, -519, -518,  ..., -483, -482, -481],\n"
            "        ...,\n"
            "        [ 480,  481,  482,  ...,  517,  518,  519],\n"
            "        [ 520,  521,  522,  ...,  557,  558,  559],\n"
            "        [ 560,  561,  562,  ...,  597,  598,  599]], dtype=torch.int32)");
}

TEST(PythonFormat, IntTensorRefusesAMismatchedShape) {
  EXPECT_THROW(torch_int_matrix_str({1, 2, 3}, 2, 2, ""), std::invalid_argument);
  EXPECT_THROW(torch_int_matrix_str({}, 0, 0, ""), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::experiments
