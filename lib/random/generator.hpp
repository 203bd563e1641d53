// PyTorch 1.13's CPU random generator, reproduced bit for bit.
//
// Source of truth: docs/torch_rng.md (verified against
// libtorch 1.13.1 on an AVX2 machine) and PyTorch's CPUGeneratorImpl,
// at::mt19937 and DistributionTemplates.h. Section numbers below refer to
// docs/torch_rng.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "random/mt19937.hpp"

namespace attnlab::random {

/// The seed a never-seeded torch.Generator() starts from (§1).
inline constexpr std::uint64_t kDefaultSeed = 67280421310721ULL;

/// A torch.Generator on the CPU: MT19937 plus the cached Box–Muller value.
/// Every fill writes in C order into contiguous float32/int64 memory, as
/// PyTorch does for a contiguous tensor.
class Generator {
 public:
  explicit Generator(std::uint64_t seed = kDefaultSeed) { manual_seed(seed); }

  /// torch.manual_seed / Generator.manual_seed: only the low 32 bits reach
  /// the engine; the cached normal is cleared (§1). Negative Python seeds are
  /// passed as their two's complement.
  void manual_seed(std::uint64_t seed);

  /// One 32-bit engine output, `w()` in §1.
  std::uint32_t random();
  /// Two outputs, the first as the high half: `w64()` in §1.
  std::uint64_t random64();

  /// torch.rand / uniform_(from, to) on n float32 values (§2): one word each,
  /// fma(u, fl(to - from), from) with from/to rounded to float32 first.
  /// Throws std::invalid_argument when from > to or to - from exceeds the
  /// float32 range, as uniform_ refuses them.
  void uniform(float* out, std::size_t n, double from = 0.0, double to = 1.0);

  /// torch.randn / normal_(mean, std) on a contiguous float32 tensor of n
  /// values (§4): n >= 16 takes the AVX2 block-of-16 path with its tail rule
  /// (n words, plus 16 when n % 16 != 0), n < 16 the double Box–Muller path
  /// (4 words per pair) with the cache kept in the generator. Throws
  /// std::invalid_argument when std < 0.
  void normal(float* out, std::size_t n, double mean = 0.0, double std = 1.0);

  /// torch.randint(low, high, (n,)) in C order (§3): one word per value when
  /// high - low < 2^32, else two. Throws std::invalid_argument when
  /// high <= low.
  void randint(std::int64_t* out, std::size_t n, std::int64_t low, std::int64_t high);

  /// torch.randperm(n, generator=self) (§3): n-1 words (none for n <= 1).
  /// Throws std::invalid_argument when n < 0.
  std::vector<std::int64_t> randperm(std::int64_t n);

  /// The keep mask of F.dropout(x, p, training=True) over n elements (§6):
  /// one w64() each, keep[i] = 1 when u53 < 1 - p. p == 0 or p == 1 draw
  /// nothing (all kept / all dropped). Throws std::invalid_argument outside
  /// [0, 1]. The words come 512 at a time (Mt19937::fill) and the test is
  /// an integer comparison, u53 < ceil((1 - p) 2^53), the same decision.
  void dropout_mask(std::uint8_t* keep, std::size_t n, double p);

  /// The engine's full state and the cached normal, so tests can check state
  /// equality after draws.
  bool operator==(const Generator& other) const;

 private:
  /// uniform_real_distribution<double>(0, 1): 53 low bits of w64() * 2^-53.
  double uniform53();
  /// at::normal_distribution<double>: one value of path B (§4.1).
  double normal_double(double mean, double std);

  Mt19937 engine_;  // the stream of std::mt19937, regenerated on AVX2 registers
  std::optional<double> cached_normal_;
};

/// The multiplier a kept element gets in dropout: fl(1 / fl(1 - p)) (§6),
/// e.g. 1.1111112f for p = 0.1. p == 0 gives 1 and p == 1 gives 0 (F.dropout
/// returns x * 0 then). Throws std::invalid_argument outside [0, 1].
float dropout_scale(double p);

}  // namespace attnlab::random
