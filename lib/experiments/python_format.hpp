// How Python and PyTorch print the things the course's scripts print:
// tuple(shape), repr of a float, str of a list of floats, print(int_tensor).
// The course tables are compared byte for byte, so these follow CPython 3
// and torch/_tensor_str.py (1.13) exactly, not approximately.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::experiments {

/// str(tuple(shape)): "(2, 6, 32)"; one dimension keeps its comma, "(5,)";
/// none is "()".
std::string py_shape(const std::vector<long long>& dims);

/// repr(x) for a Python float: the shortest digits that read back as x
/// (fmt gives the same digits), with ".0" on whole numbers ("2.0", not "2"),
/// exponent form below 1e-4 and from 1e16 on ("1e-05", "1e+16"), and "inf",
/// "-inf", "nan".
std::string py_float(double x);

/// round(x, ndigits) for a Python float: the double nearest to x rounded
/// correctly to ndigits decimals (CPython rounds the exact binary value, half
/// to even), so py_float(py_round(0.99994999170303344, 4)) is "0.9999".
double py_round(double x, int ndigits);

/// str(list_of_floats): "[0.5, 0.574999988079071]".
std::string py_float_list(const std::vector<double>& values);

/// ' '.join(format % v for v in values): one printf format per value, as the
/// scripts print a row of weights ("%.3f").
std::string join_formatted(const char* format, const float* values, std::size_t n);

/// print(t) for a 2-D integer tensor t (rows, cols) in C order, as PyTorch
/// 1.13 prints it with the default print options: elements right-aligned to
/// the widest, rows wrapped at 80 columns, and more than 1000 elements
/// summarised to the first and last three rows and columns with "...".
/// dtype is the suffix PyTorch adds for a non-default integer type, e.g.
/// "torch.int32" (what tensor.int() gives); "" for int64, which has none.
/// No trailing newline. Throws std::invalid_argument unless rows, cols >= 1
/// and values.size() == rows * cols.
std::string torch_int_matrix_str(const std::vector<std::int64_t>& values, int rows, int cols,
                                 const std::string& dtype);

}  // namespace attnlab::experiments
