// The 32-bit Mersenne Twister, the engine of PyTorch 1.13's CPU generator
// (at::mt19937), with its block regeneration (the "twist") on AVX2 registers.
//
// Matsumoto & Nishimura 1998, "Mersenne Twister: a 623-dimensionally
// equidistributed uniform pseudo-random number generator", ACM TOMACS 8(1),
// eq. (2.1) and the tempering of eq. (2.2)-(2.5); N = 624, M = 397, matrix
// 0x9908B0DF; seeded by init_genrand (docs/torch_rng.md §1).
//
// Why our own: std::mt19937 (libstdc++) regenerates the block one word at a
// time and tempers one word per call; with a dropout mask drawing two words
// per element, that loop was the mask's cost. The recurrence
//   x[k+N] = x[k+M] ^ A(upper(x[k]) | lower(x[k+1]))
// reads words at distances 1 and M (and N - M = 227 back into the new block)
// only, so eight consecutive words are independent and one register computes
// them; tempering is lane by lane too. The outputs are the same words as
// std::mt19937 seeded alike, which tests/random/mt19937_test.cpp checks over
// millions of draws, and PyTorch's recorded streams check through Generator.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace attnlab::random {

class Mt19937 {
 public:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  explicit Mt19937(std::uint32_t seed = 5489u) { this->seed(seed); }

  /// init_genrand(seed): the block is regenerated before the first output.
  void seed(std::uint32_t seed);

  /// The next output word.
  std::uint32_t operator()() {
    if (next_ == kN) regenerate();
    return temper(state_[next_++]);
  }

  /// out[0..n) = the next n outputs, as n calls of operator() would give.
  /// Whole blocks are tempered eight words to a register. No allocation.
  void fill(std::uint32_t* out, std::size_t n);

  /// Same state and the same position in the block.
  bool operator==(const Mt19937& other) const { return next_ == other.next_ && state_ == other.state_; }

  /// Eq. (2.2)-(2.5).
  static std::uint32_t temper(std::uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9D2C5680u;
    y ^= (y << 15) & 0xEFC60000u;
    return y ^ (y >> 18);
  }

 private:
  void regenerate();

  alignas(32) std::array<std::uint32_t, kN> state_;
  int next_ = kN;  // index of the next word to temper; kN: the block is used up
};

/// The twist on a block of 624 words in place: the next block of the
/// recurrence, on AVX2 registers (xsimd), eight words at a time.
void mt19937_twist(std::uint32_t* state);

/// The same, one word at a time as in the paper's genrand: the reference the
/// tests hold mt19937_twist to, and the benchmark's baseline.
void mt19937_twist_scalar(std::uint32_t* state);

}  // namespace attnlab::random
