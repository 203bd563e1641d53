#include "random/mt19937.hpp"

#include <xsimd/xsimd.hpp>

#include <algorithm>

namespace attnlab::random {

namespace {

constexpr std::uint32_t kMatrix = 0x9908B0DFu, kUpper = 0x80000000u, kLower = 0x7FFFFFFFu;
constexpr int kN = Mt19937::kN, kM = Mt19937::kM;

// A(upper(a) | lower(b)): shift right, and xor the matrix when the low bit is set
inline std::uint32_t mix(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t y = (a & kUpper) | (b & kLower);
  return (y >> 1) ^ ((y & 1u) ? kMatrix : 0u);
}

using words = xsimd::batch<std::uint32_t>;
constexpr int W = int(words::size);

inline words mix(words a, words b) {
  const words y = (a & words(kUpper)) | (b & words(kLower));
  // 0 - (y & 1) is all ones where the low bit is set: the matrix, or 0
  return (y >> 1) ^ ((words(0u) - (y & words(1u))) & words(kMatrix));
}

// x[k] = x[k + off] ^ mix(x[k], x[k + 1]) for k in [from, to), a register at a
// time while one fits. Both loads come before the store, and x[k + 1 .. k + W]
// are still the old words (the next register's start is stored after), so
// the lanes see exactly what the scalar loop would; x[k + off] is W or more
// away in either direction (off = M, or M - N = -227).
inline void twist_range(std::uint32_t* x, int from, int to, int off) {
  int k = from;
  for (; k + W <= to; k += W) {
    const words a = words::load_unaligned(x + k), b = words::load_unaligned(x + k + 1);
    const words c = words::load_unaligned(x + k + off);
    (c ^ mix(a, b)).store_unaligned(x + k);
  }
  for (; k < to; ++k) x[k] = x[k + off] ^ mix(x[k], x[k + 1]);
}

}  // namespace

void mt19937_twist_scalar(std::uint32_t* x) {
  for (int k = 0; k < kN - kM; ++k) x[k] = x[k + kM] ^ mix(x[k], x[k + 1]);
  for (int k = kN - kM; k < kN - 1; ++k) x[k] = x[k + kM - kN] ^ mix(x[k], x[k + 1]);
  x[kN - 1] = x[kM - 1] ^ mix(x[kN - 1], x[0]);
}

void mt19937_twist(std::uint32_t* x) {
  twist_range(x, 0, kN - kM, kM);            // 227 words from the old block's tail
  twist_range(x, kN - kM, kN - 1, kM - kN);  // 396 from the new block's head
  x[kN - 1] = x[kM - 1] ^ mix(x[kN - 1], x[0]);  // wraps to the new x[0]
}

void Mt19937::seed(std::uint32_t seed) {
  state_[0] = seed;
  for (int i = 1; i < kN; ++i)
    state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
  next_ = kN;
}

void Mt19937::regenerate() {
  mt19937_twist(state_.data());
  next_ = 0;
}

void Mt19937::fill(std::uint32_t* out, std::size_t n) {
  while (n > 0) {
    if (next_ == kN) regenerate();
    const int m = static_cast<int>(std::min<std::size_t>(n, std::size_t(kN - next_)));
    const std::uint32_t* in = state_.data() + next_;
    int i = 0;
    for (; i + W <= m; i += W) {
      words y = words::load_unaligned(in + i);
      y ^= y >> 11;
      y ^= (y << 7) & words(0x9D2C5680u);
      y ^= (y << 15) & words(0xEFC60000u);
      (y ^ (y >> 18)).store_unaligned(out + i);
    }
    for (; i < m; ++i) out[i] = temper(in[i]);
    next_ += m;
    out += m;
    n -= std::size_t(m);
  }
}

}  // namespace attnlab::random
