// The course's make_sequences (data/course/13_positions_vs_none.py),
// draw for draw, so our training data equals PyTorch's X_tr / X_va.
#include "data/sequences.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

#include "random/generator.hpp"

namespace attnlab::data {

std::size_t sequences_bytes(int n, int length) {
  return static_cast<std::size_t>(n) * (static_cast<std::size_t>(length) + 1) * sizeof(std::int32_t);
}

std::size_t make_sequences_peak_bytes(int n, int length) {
  // first, rest, y, where: n * (1 + (length - 1) + 1 + 1) int64 values
  return sequences_bytes(n, length) + static_cast<std::size_t>(n) * (static_cast<std::size_t>(length) + 2) * sizeof(std::int64_t);
}

Sequences make_sequences(int n, int length, std::uint64_t seed) {
  if (n < 1 || length < 2)
    throw std::invalid_argument("make_sequences: needs n >= 1 and length >= 2, got n=" +
                                std::to_string(n) + " length=" + std::to_string(length));
  const auto rows = static_cast<std::size_t>(n);
  const auto rest_len = static_cast<std::size_t>(length - 1);

  // Four randint calls on one fresh generator, in the course's order.
  random::Generator g(seed);
  std::vector<std::int64_t> first(rows);            // (n, 1) in [1, 10)
  std::vector<std::int64_t> rest(rows * rest_len);  // (n, length-1) in [1, 9)
  std::vector<std::int64_t> y(rows);                // (n) in [0, 2)
  std::vector<std::int64_t> where(rows);            // (n, 1) in [0, length-1)
  g.randint(first.data(), first.size(), 1, 10);
  g.randint(rest.data(), rest.size(), 1, 9);
  g.randint(y.data(), y.size(), 0, 2);
  g.randint(where.data(), where.size(), 0, length - 1);

  Sequences out;
  out.n = n;
  out.length = length;
  out.tokens.resize(rows * static_cast<std::size_t>(length));
  out.labels.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    std::int32_t* row = out.tokens.data() + i * static_cast<std::size_t>(length);
    const auto f = static_cast<std::int32_t>(first[i]);
    row[0] = f;
    for (std::size_t k = 0; k < rest_len; ++k) {
      // rest + (rest >= first) maps [1, 9) onto the digits 1..9 except f,
      // so f recurs only where it is planted.
      auto r = static_cast<std::int32_t>(rest[i * rest_len + k]);
      r += r >= f ? 1 : 0;
      if (y[i] == 1 && static_cast<std::int64_t>(k) == where[i]) r = f;
      row[1 + k] = r;
    }
    out.labels[i] = static_cast<std::int32_t>(y[i]);
  }
  return out;
}

}  // namespace attnlab::data
