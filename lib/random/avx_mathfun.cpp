// One lane of avx_mathfun.h (Julien Pommier's Cephes port, as shipped in
// ATen/native/cpu/avx_mathfun.h) in scalar float32.
//
// This file is compiled with -ffp-contract=off, so `a * b + c` rounds twice.
// The std::fmaf calls are the multiply-adds GCC fused when it built
// libtorch's AVX2 kernel (docs/torch_rng.md §4.3 found them by undoing each fusion
// and counting changed outputs); replacing any of them, or letting the
// compiler fuse anything else, changes some torch.randn values by 1 ulp.
#include "random/avx_mathfun.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace attnlab::random::detail {
namespace {

// The vector code holds float32 roundings of double literals
// (_PS256_CONST(name, double)), so round through double as it does; the
// static_asserts pin the bit patterns docs/torch_rng.md's reference uses.
constexpr float f32(double v) { return static_cast<float>(v); }

constexpr float kMinNormPos = std::numeric_limits<float>::min();  // 2^-126
constexpr float kSqrtHF = f32(0.707106781186547524);
constexpr float kLogP[9] = {f32(7.0376836292E-2),  f32(-1.1514610310E-1), f32(1.1676998740E-1),
                            f32(-1.2420140846E-1), f32(1.4249322787E-1),  f32(-1.6668057665E-1),
                            f32(2.0000714765E-1),  f32(-2.4999993993E-1), f32(3.3333331174E-1)};
constexpr float kLogQ1 = f32(-2.12194440e-4);
constexpr float kLogQ2 = f32(0.693359375);

constexpr float kFopi = f32(1.27323954473516);  // 4 / pi
constexpr float kDP1 = f32(-0.78515625);         // -pi/4 in three pieces (Cody-Waite)
constexpr float kDP2 = f32(-2.4187564849853515625e-4);
constexpr float kDP3 = f32(-3.77489497744594108e-8);
constexpr float kSinP[3] = {f32(-1.9515295891E-4), f32(8.3321608736E-3), f32(-1.6666654611E-1)};
constexpr float kCosP[3] = {f32(2.443315711809948E-005), f32(-1.388731625493765E-003),
                            f32(4.166664568298827E-002)};

static_assert(std::bit_cast<std::uint32_t>(kSqrtHF) == 0x3f3504f3);
static_assert(std::bit_cast<std::uint32_t>(kLogP[0]) == 0x3d9021bb);
static_assert(std::bit_cast<std::uint32_t>(kLogP[8]) == 0x3eaaaaaa);
static_assert(std::bit_cast<std::uint32_t>(kLogQ1) == 0xb95e8083);
static_assert(std::bit_cast<std::uint32_t>(kLogQ2) == 0x3f318000);
static_assert(std::bit_cast<std::uint32_t>(kFopi) == 0x3fa2f983);
static_assert(std::bit_cast<std::uint32_t>(kDP1) == 0xbf490000);
static_assert(std::bit_cast<std::uint32_t>(kDP2) == 0xb97da000);
static_assert(std::bit_cast<std::uint32_t>(kDP3) == 0xb3222169);
static_assert(std::bit_cast<std::uint32_t>(kSinP[0]) == 0xb94ca1f9);
static_assert(std::bit_cast<std::uint32_t>(kSinP[2]) == 0xbe2aaaa3);
static_assert(std::bit_cast<std::uint32_t>(kCosP[0]) == 0x37ccf5ce);
static_assert(std::bit_cast<std::uint32_t>(kCosP[2]) == 0x3d2aaaa5);

}  // namespace

float log256(float x) {
  // The vector code ORs an all-ones mask into lanes with x <= 0: NaN.
  if (!(x > 0.0f)) return std::numeric_limits<float>::quiet_NaN();
  x = std::fmax(x, kMinNormPos);  // cut off denormals

  // Split x = m * 2^e with m in [0.5, 1): replace the exponent field by 0.5's.
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const std::int32_t exponent = static_cast<std::int32_t>(bits >> 23) - 0x7f;
  const float m = std::bit_cast<float>((bits & ~0x7f800000u) | 0x3f000000u);
  float e = static_cast<float>(exponent) + 1.0f;

  // Keep the polynomial's argument in [sqrt(1/2) - 1, sqrt(2) - 1): for
  // m < sqrt(1/2) use 2m - 1 and one less in the exponent. The vector code
  // adds a masked m (or +0) to m - 1; both sums are exact.
  if (m < kSqrtHF) {
    e = e - 1.0f;
    x = (m - 1.0f) + m;
  } else {
    x = (m - 1.0f) + 0.0f;
  }

  const float z = x * x;
  float y = kLogP[0];
  for (int k = 1; k < 9; ++k) y = std::fmaf(y, x, kLogP[k]);  // fused Horner steps
  y = y * x;
  y = std::fmaf(y, z, e * kLogQ1);  // y*z + e*q1, with e*q1 rounded on its own
  y = y - z * 0.5f;                 // z * 0.5 is exact: fused or not is the same
  x = x + y;
  x = x + e * kLogQ2;  // e * q2 is exact (8-bit integer times a 9-bit constant)
  return x;
}

void sincos256(float x, float& sin_x, float& cos_x) {
  bool sin_negative = std::signbit(x);
  x = std::fabs(x);

  // j = the octant of x rounded up to even, as an integer (cvttps truncates).
  std::int32_t j = static_cast<std::int32_t>(x * kFopi);
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  const bool swap_sin_sign = (j & 4) != 0;
  const bool sine_poly_for_sin = (j & 2) == 0;
  const bool cos_negative = ((j - 2) & 4) == 0;
  sin_negative = sin_negative != swap_sin_sign;

  // Extended-precision reduction x - j*pi/4, all three steps fused.
  x = std::fmaf(y, kDP1, x);
  x = std::fmaf(y, kDP2, x);
  x = std::fmaf(y, kDP3, x);
  const float z = x * x;

  // Cosine polynomial, valid on [-pi/4, pi/4].
  float c = std::fmaf(std::fmaf(kCosP[0], z, kCosP[1]), z, kCosP[2]);
  c = c * z;
  c = std::fmaf(c, z, -(z * 0.5f));
  c = c + 1.0f;

  // Sine polynomial, same interval.
  float s = std::fmaf(std::fmaf(kSinP[0], z, kSinP[1]), z, kSinP[2]);
  s = s * z;
  s = std::fmaf(s, x, x);

  // The vector code picks each result with and/andnot masks (unselected
  // lanes are +0) and then adds, so a -0 result comes out as +0 before the
  // sign flips. Kept literally for bit-exact zeros.
  const float sin_pick = sine_poly_for_sin ? s : 0.0f;  // ysin2
  const float cos_pick = sine_poly_for_sin ? 0.0f : c;  // ysin1
  const float s_rest = s - sin_pick;
  const float c_rest = c - cos_pick;
  float sin_v = cos_pick + sin_pick;
  float cos_v = c_rest + s_rest;
  if (sin_negative) sin_v = -sin_v;  // the vector code XORs the sign bit
  if (cos_negative) cos_v = -cos_v;
  sin_x = sin_v;
  cos_x = cos_v;
}

}  // namespace attnlab::random::detail
