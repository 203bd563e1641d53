// Central finite differences for backward passes, in double precision.
//
// loss() must recompute a scalar from the current contents of `x`; the
// check perturbs each element of x by ±eps, so keep shapes tiny.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace attnlab::testing {

/// Numerical gradient of loss() with respect to x[0..n), central difference
/// (f(x+eps) - f(x-eps)) / 2eps; truncation error O(eps^2).
inline std::vector<double> numerical_gradient(const std::function<double()>& loss, double* x,
                                              std::size_t n, double eps = 1e-6) {
  std::vector<double> g(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double saved = x[i];
    x[i] = saved + eps;
    const double up = loss();
    x[i] = saved - eps;
    const double down = loss();
    x[i] = saved;
    g[i] = (up - down) / (2 * eps);
  }
  return g;
}

/// Asserts |analytic - numerical| <= tol * max(1, |numerical|) elementwise,
/// naming the tensor and the first index that fails; a NaN on either side
/// fails (the comparison is false), and so does an infinity.
inline void expect_gradient_close(const std::string& name, const double* analytic,
                                  const std::vector<double>& numerical, double tol = 1e-6) {
  for (std::size_t i = 0; i < numerical.size(); ++i) {
    ASSERT_TRUE(std::isfinite(analytic[i]) && std::isfinite(numerical[i]))
        << name << "[" << i << "]: analytic " << analytic[i] << " numerical " << numerical[i];
    const double scale = std::max(1.0, std::abs(numerical[i]));
    ASSERT_LE(std::abs(analytic[i] - numerical[i]), tol * scale)
        << name << "[" << i << "]: analytic " << analytic[i] << " numerical " << numerical[i];
  }
}

/// Fills x with deterministic values in (-scale, scale) from a small LCG,
/// so gradient checks need no generator of their own.
inline void fill_pseudo_random(double* x, std::size_t n, unsigned seed, double scale = 1.0) {
  unsigned s = seed * 2654435761u + 12345u;
  for (std::size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = scale * (2.0 * ((s >> 8) / 16777216.0) - 1.0);
  }
}

}  // namespace attnlab::testing
