#include "experiments/python_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "report/text.hpp"

namespace attnlab::experiments {

std::string py_shape(const std::vector<long long>& dims) {
  if (dims.size() == 1) return fmt::format("({},)", dims[0]);
  return fmt::format("({})", fmt::join(dims, ", "));
}

std::string py_float(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  // fmt's "{}" is the shortest round-trip form, switching to an exponent
  // where CPython's repr does (below 1e-4, from 1e16 on); only the ".0" that
  // repr puts on a whole number is missing.
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

double py_round(double x, int ndigits) {
  if (!std::isfinite(x)) return x;
  // fmt's fixed format rounds the exact binary value correctly, as CPython's
  // round() does (both go through the shortest/correctly-rounded dtoa)
  return std::strtod(fmt::format("{:.{}f}", x, ndigits).c_str(), nullptr);
}

std::string py_float_list(const std::vector<double>& values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + py_float(values[i]);
  return s + "]";
}

std::string join_formatted(const char* format, const float* values, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += (i ? " " : "") + report::printf(format, static_cast<double>(values[i]));
  return s;
}

namespace {

// torch._tensor_str's defaults (PRINT_OPTS).
constexpr int kLinewidth = 80;
constexpr std::size_t kThreshold = 1000;
constexpr int kEdgeItems = 3;
constexpr int kIndent = 7;  // len("tensor(")

// The indices printed along an axis of n: all, or the first and last
// kEdgeItems with -1 marking the "..." between them.
std::vector<int> shown(int n, bool summarize) {
  std::vector<int> idx;
  if (summarize && n > 2 * kEdgeItems) {
    for (int i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    idx.push_back(-1);
    for (int i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
  } else {
    for (int i = 0; i < n; ++i) idx.push_back(i);
  }
  return idx;
}

// _vector_str for one row at indent 8: elements padded to `width`, as many
// per line as fit in the line width.
std::string row_str(const std::vector<std::int64_t>& values, int row, int cols, const std::vector<int>& col_idx,
                    std::size_t width) {
  const int indent = kIndent + 1;
  const int per_line = std::max(1, (kLinewidth - indent) / static_cast<int>(width + 2));
  std::vector<std::string> data;
  for (int j : col_idx) {
    if (j < 0) {
      data.push_back(" ...");
      continue;
    }
    const std::string v = fmt::format("{}", values[static_cast<std::size_t>(row) * cols + j]);
    data.push_back(std::string(width - v.size(), ' ') + v);
  }
  std::string s = "[";
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i > 0) s += (i % per_line == 0) ? ",\n" + std::string(indent + 1, ' ') : ", ";
    s += data[i];
  }
  return s + "]";
}

}  // namespace

std::string torch_int_matrix_str(const std::vector<std::int64_t>& values, int rows, int cols,
                                 const std::string& dtype) {
  if (rows < 1 || cols < 1 || values.size() != static_cast<std::size_t>(rows) * cols)
    throw std::invalid_argument(fmt::format("torch_int_matrix_str: {} values for a ({}, {}) tensor", values.size(),
                                            rows, cols));
  const bool summarize = values.size() > kThreshold;
  const std::vector<int> row_idx = shown(rows, summarize), col_idx = shown(cols, summarize);

  // _Formatter: the widest printed element decides every element's width
  // (only the elements shown count when summarised).
  std::size_t width = 1;
  for (int i : row_idx)
    for (int j : col_idx)
      if (i >= 0 && j >= 0)
        width = std::max(width, fmt::format("{}", values[static_cast<std::size_t>(i) * cols + j]).size());

  std::string s = "tensor([";
  for (std::size_t k = 0; k < row_idx.size(); ++k) {
    if (k > 0) s += ",\n" + std::string(kIndent + 1, ' ');
    s += row_idx[k] < 0 ? "..." : row_str(values, row_idx[k], cols, col_idx, width);
  }
  s += "]";
  // _add_suffixes: the dtype goes on the last line unless it would pass the
  // line width.
  if (!dtype.empty()) {
    const std::string suffix = "dtype=" + dtype;
    const std::size_t last_newline = s.rfind('\n');
    const std::size_t last_line_len = last_newline == std::string::npos ? s.size() + 2 : s.size() - last_newline + 1;
    s += last_line_len + suffix.size() + 2 > kLinewidth ? ",\n" + std::string(kIndent, ' ') + suffix : ", " + suffix;
  }
  return s + ")";
}

}  // namespace attnlab::experiments
