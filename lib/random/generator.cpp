// The engine and the draws that need no libm: words, uniform floats,
// integers, permutations and dropout masks (docs/torch_rng.md §1-3, §6).
// The normal distribution lives in normal.cpp.
#include "random/generator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace attnlab::random {

void Generator::manual_seed(std::uint64_t seed) {
  // at::mt19937 is init_genrand on the low 32 bits, which is exactly what
  // std::mt19937::seed does with its argument (taken mod 2^32).
  engine_.seed(static_cast<std::uint32_t>(seed & 0xFFFFFFFFu));
  cached_normal_.reset();
}

std::uint32_t Generator::random() { return static_cast<std::uint32_t>(engine_()); }

std::uint64_t Generator::random64() {
  // Both halves are drawn in order; the first becomes the HIGH half.
  const std::uint64_t hi = random();
  const std::uint64_t lo = random();
  return (hi << 32) | lo;
}

double Generator::uniform53() {
  constexpr std::uint64_t kMask53 = (std::uint64_t{1} << 53) - 1;
  return static_cast<double>(random64() & kMask53) * 0x1p-53;  // exact
}

void Generator::uniform(float* out, std::size_t n, double from, double to) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (!(from >= -kMax && to <= kMax))
    throw std::invalid_argument("uniform: from and to must lie in the float32 range");
  if (!(from <= to))
    throw std::invalid_argument("uniform: expects from <= to, got from=" + std::to_string(from) +
                                " > to=" + std::to_string(to));
  if (!(to - from <= kMax))
    throw std::invalid_argument("uniform: to - from exceeds the float32 range");
  // uniform_kernel casts the bounds to float and subtracts in float.
  const float lo = static_cast<float>(from);
  const float range = static_cast<float>(to) - lo;
  for (std::size_t i = 0; i < n; ++i) {
    const float u = static_cast<float>(random() & 0xFFFFFFu) * 0x1p-24f;  // exact, in [0, 1)
    // GCC contracted u * range + from in libtorch's kernel: one rounding.
    out[i] = std::fmaf(u, range, lo);
  }
}

void Generator::randint(std::int64_t* out, std::size_t n, std::int64_t low, std::int64_t high) {
  if (!(low < high))
    throw std::invalid_argument("randint: expects low < high, got low=" + std::to_string(low) +
                                " >= high=" + std::to_string(high));
  // random_from_to computes the range in uint64, so [-2^63, 2^63 - 1) works.
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const std::uint64_t base = static_cast<std::uint64_t>(low);
  if (range >= (std::uint64_t{1} << 32)) {
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<std::int64_t>(random64() % range + base);  // wraps like int64 in C++20
  } else {
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<std::int64_t>(random() % range + base);  // modulo bias kept, as torch
  }
}

std::vector<std::int64_t> Generator::randperm(std::int64_t n) {
  if (n < 0) throw std::invalid_argument("randperm: n must be >= 0, got " + std::to_string(n));
  std::vector<std::int64_t> r(static_cast<std::size_t>(n));
  std::iota(r.begin(), r.end(), std::int64_t{0});
  // randperm_cpu: a forward Fisher-Yates with one 32-bit word per step.
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    const auto z = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(n - i));
    std::swap(r[static_cast<std::size_t>(i)], r[static_cast<std::size_t>(i + z)]);
  }
  return r;
}

void Generator::dropout_mask(std::uint8_t* keep, std::size_t n, double p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument("dropout: p must lie in [0, 1], got " + std::to_string(p));
  // F.dropout short-cuts both ends without touching the generator.
  if (p == 0.0 || p == 1.0) {
    std::fill(keep, keep + n, static_cast<std::uint8_t>(p == 0.0 ? 1 : 0));
    return;
  }
  // bernoulli_(1 - p) without MKL: a 53-bit double per element, kept when
  // u53 · 2^-53 < 1 - p, with 1 - p in double. Scaling by 2^53 is exact, and
  // for an integer u53 "u53 < x" is "u53 < ceil(x)": one integer comparison
  // makes the same decision as the double one, on whole blocks of words.
  const double keep_probability = 1.0 - p;
  const auto threshold = static_cast<std::uint64_t>(std::ceil(std::ldexp(keep_probability, 53)));
  constexpr std::size_t kPairs = 256;
  std::uint32_t words[2 * kPairs];
  for (std::size_t done = 0; done < n; done += kPairs) {
    const std::size_t m = std::min(kPairs, n - done);
    engine_.fill(words, 2 * m);
    for (std::size_t i = 0; i < m; ++i) {
      // w64() & (2^53 - 1): the high word's low 21 bits above the low word
      const std::uint64_t u53 = (std::uint64_t{words[2 * i] & 0x1FFFFFu} << 32) | words[2 * i + 1];
      keep[done + i] = u53 < threshold ? 1 : 0;
    }
  }
}

bool Generator::operator==(const Generator& other) const {
  return engine_ == other.engine_ && cached_normal_ == other.cached_normal_;
}

float dropout_scale(double p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument("dropout_scale: p must lie in [0, 1], got " + std::to_string(p));
  if (p == 1.0) return 0.0f;
  // noise.div_(1 - p) divides the float32 mask by 1 - p rounded to float32.
  return 1.0f / static_cast<float>(1.0 - p);
}

}  // namespace attnlab::random
