// The paired t test: two rows that ran on the same seeds (attnlab's sweeps
// give the same seed the same data and initial weights), compared through
// their per-seed differences, which removes the seed's share of the spread.
#pragma once

#include <optional>
#include <vector>

#include "stats/t_test.hpp"

namespace attnlab::stats {

/// Student's t test on d_i = a_i − b_i (Student 1908; SciPy's ttest_rel):
///   Δ = mean(d), se = sd(d)/√n (sd with n − 1), df = n − 1, t = Δ/se,
///   p = 2·P(T_df ≤ −|t|), ci95 = Δ ± t_{0.975, df}·se.
/// a[i] and b[i] must come from the same seed. Units of Δ, se, ci95: the
/// values'. Equal to SciPy 1.10 at 1e-9 (tests/stats/paired_t_test.cpp).
/// Zero spread of the differences (every d_i equal):
///   d_i ≠ 0: t = ±inf, p = 0, ci95 = [Δ, Δ] (SciPy 1.10 gives the same t
///            and p: it divides by a zero standard error);
///   d_i = 0: t = 0, p = 1, ci95 = [0, 0] (SciPy gives NaN for 0/0; the
///            rows are identical on every seed, and no test can find a
///            difference where there is none).
/// n = 1: no test (nullopt): one difference has no spread to estimate
/// (SciPy: NaN). Throws std::invalid_argument when a or b is empty, a value
/// is not finite, or a and b differ in length.
std::optional<TTest> paired_t(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace attnlab::stats
