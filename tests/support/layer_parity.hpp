// Comparing a layer's float32 results with PyTorch's (the goldens in data/kernels/):
// within the elementwise tolerance below, or bit for bit where our maths
// rounds as PyTorch's does (initialisation, dropout).
//
// A namespace of its own because recurrent_test_util.hpp, linked into the same
// test_nn program, defines attnlab::testing::expect_close_to_torch with another
// rule (relative to the tensor's largest value only): two inline functions of
// one name and signature in one namespace break the one-definition rule, and
// the linker would silently keep one body for both.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support/golden.hpp"

namespace attnlab::testing::layers {

// Float32 result against PyTorch's float32 figure, elementwise:
//   |got - want| <= 1e-5 * |want| + 1e-6 * max_j |want_j|.
// The second term, a millionth of the tensor's largest value, is for values
// that come out of cancellation, where float32 rounding of the terms is large
// against the result: LayerNorm out[22] = 0.0012864 vs PyTorch's 0.0012862
// (2.7e-7 apart, 2e-4 relative: (x - mean) * rstd * w + b with terms near 1)
// and GELU in its negative tail, where PyTorch's vectorised float erf is the
// Abramowitz-Stegun 7.1.26 polynomial (|error| <= 1.5e-7): dinp 1e-2 relative
// off on a value near 1e-5. Worst measured: 2.8e-7 of the tensor's peak.
/// A NaN or infinity in got or want fails (ASSERT_LE is false for NaN).
inline void expect_close_to_torch(const std::string& name, const float* got,
                                  const std::vector<float>& want, double rtol = 1e-5) {
  double peak = 0.0;
  for (float w : want) peak = std::max(peak, std::abs(double(w)));
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i]) && std::isfinite(want[i]))
        << name << "[" << i << "]: got " << got[i] << " PyTorch " << want[i];
    const double tol = rtol * std::abs(double(want[i])) + 1e-6 * peak;
    ASSERT_LE(std::abs(double(got[i]) - double(want[i])), tol)
        << name << "[" << i << "]: got " << got[i] << " PyTorch " << want[i];
  }
}

/// Bit-for-bit equality of got[0 .. want.size()) with want: memcmp, so -0.0
/// differs from +0.0. A NaN or an infinity fails even where PyTorch's value
/// has the same bits: no golden compared this way (weights, masks) has one.
inline void expect_bits_equal(const std::string& name, const float* got,
                              const std::vector<float>& want) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i])) << name << "[" << i << "]: got " << got[i];
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0)
        << name << "[" << i << "]: got " << got[i] << " PyTorch " << want[i];
  }
}

/// Bit-for-bit equality of two float32 buffers, sizes first.
inline void expect_bits_equal(const std::string& name, const std::vector<float>& got,
                              const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size()) << name;
  expect_bits_equal(name, got.data(), want);
}

/// data/kernels/layers_parity.json (scripts/make_layer_goldens.py), parsed once per
/// test program.
inline const nlohmann::json& parity() {
  static const nlohmann::json j = load_golden("kernels/layers_parity.json");
  return j;
}

}  // namespace attnlab::testing::layers
