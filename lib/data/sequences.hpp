// The course's task: is the digit at position 0 repeated later?
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnlab::data {

/// n sequences of `length` digits and their labels, row-major.
struct Sequences {
  int n = 0;
  int length = 0;
  std::vector<std::int32_t> tokens;  // (n, length), digits 1..9
  std::vector<std::int32_t> labels;  // (n), 1 when tokens[i][0] recurs later
};

/// The course's make_sequences(n, length, seed) element for element
/// (data/course/13_positions_vs_none.py; draws per docs/torch_rng.md §3): a
/// fresh Generator seeded with `seed` makes four randint calls,
/// first (n,1) in [1,10), rest (n,length-1) in [1,9), y (n) in [0,2) and
/// where (n,1) in [0,length-1). Throws std::invalid_argument for n < 1 or
/// length < 2.
Sequences make_sequences(int n, int length, std::uint64_t seed);

/// Bytes a Sequences of n sequences of `length` holds (tokens and labels).
std::size_t sequences_bytes(int n, int length);

/// Bytes make_sequences(n, length, ...) holds at its peak: the result and
/// the four int64 draws it is made from (about 3x the result).
std::size_t make_sequences_peak_bytes(int n, int length);

}  // namespace attnlab::data
