// torch.randn / normal_ on a contiguous float32 tensor (docs/torch_rng.md §4).
// normal_kernel picks its path from the tensor: 16 or more elements take the
// AVX2 normal_fill (path A, float32, blocks of 16); fewer take one
// at::normal_distribution<double> per element (path B), which shares the
// generator's cached second Box-Muller value.
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "random/avx_mathfun.hpp"
#include "random/generator.hpp"

namespace attnlab::random {
namespace {

// (float)(2.0f * c10::pi<double>), 0x40C90FDB.
constexpr float kTwoPiF = static_cast<float>(2.0 * std::numbers::pi);

/// normal_fill_16_AVX2 on d[0..16): lanes j = 0..7 pair d[j] (radius) with
/// d[j + 8] (angle) and overwrite both with normals. d holds uniforms in [0, 1).
void box_muller_16(float* d, float mean, float std) {
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - d[j];  // (0, 1]: safe for log
    const float u2 = d[j + 8];
    const float radius = std::sqrt(-2.0f * detail::log256(u1));
    const float theta = kTwoPiF * u2;
    float sin_theta = 0.0f;
    float cos_theta = 0.0f;
    detail::sincos256(theta, sin_theta, cos_theta);
    // The kernel writes _mm256_fmadd_ps(radius * trig, std, mean).
    d[j] = std::fmaf(radius * cos_theta, std, mean);
    d[j + 8] = std::fmaf(radius * sin_theta, std, mean);
  }
}

}  // namespace

double Generator::normal_double(double mean, double std) {
  // The cached value is stored unscaled and scaled when consumed (§4.1).
  if (cached_normal_) {
    const double cached = *cached_normal_;
    cached_normal_.reset();
    return cached * std + mean;
  }
  const double u1 = uniform53();  // angle
  const double u2 = uniform53();  // radius
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  cached_normal_ = r * std::sin(theta);
  return r * std::cos(theta) * std + mean;
}

void Generator::normal(float* out, std::size_t n, double mean, double std) {
  if (!(std >= 0.0))
    throw std::invalid_argument("normal: expects std >= 0, got " + std::to_string(std));

  if (n < 16) {  // path B, one element at a time in C order
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(normal_double(mean, std));
    return;
  }

  // Path A. First one float32 uniform per element, all of them.
  const auto uniform24 = [this] { return static_cast<float>(random() & 0xFFFFFFu) * 0x1p-24f; };
  for (std::size_t i = 0; i < n; ++i) out[i] = uniform24();
  const float mean_f = static_cast<float>(mean);
  const float std_f = static_cast<float>(std);
  for (std::size_t start = 0; start + 16 <= n; start += 16) box_muller_16(out + start, mean_f, std_f);

  // A ragged end is recomputed from 16 FRESH uniforms written over the last
  // 16 positions, clobbering outputs of the last full block too.
  if (n % 16 != 0) {
    float* tail = out + (n - 16);
    for (int k = 0; k < 16; ++k) tail[k] = uniform24();
    box_muller_16(tail, mean_f, std_f);
  }
}

}  // namespace attnlab::random
