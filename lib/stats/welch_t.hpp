// Welch's t test: two rows that did not run on the same seeds, with
// variances that need not be equal (the robust default of Colas et al. 2019,
// "A Hitchhiker's Guide to Statistical Comparisons of RL Algorithms").
#pragma once

#include <optional>
#include <vector>

#include "stats/t_test.hpp"

namespace attnlab::stats {

/// Welch's unequal-variances t test (Welch 1947; Satterthwaite 1946; SciPy's
/// ttest_ind(equal_var=False)):
///   Δ = mean(a) − mean(b), se = √(s_a²/n_a + s_b²/n_b) (s² with n − 1),
///   df = (s_a²/n_a + s_b²/n_b)² / ((s_a²/n_a)²/(n_a − 1) + (s_b²/n_b)²/(n_b − 1)),
///   t = Δ/se, p = 2·P(T_df ≤ −|t|), ci95 = Δ ± t_{0.975, df}·se.
/// Units of Δ, se, ci95: the values'. Equal to SciPy 1.10 at 1e-9
/// (tests/stats/welch_t_test.cpp). One constant side is no special case
/// (df = n − 1 of the other). Both sides constant (se = 0, df = 0/0 = NaN):
///   Δ ≠ 0: t = ±inf, p = 0, ci95 = [Δ, Δ] (SciPy 1.10: the same t and p);
///   Δ = 0: t = 0, p = 1, ci95 = [0, 0] (SciPy: NaN; every value on both
///          sides is the same number).
/// n_a = 1 or n_b = 1: no test (nullopt): that side's variance is undefined
/// (SciPy: NaN). Throws std::invalid_argument when a or b is empty or a
/// value is not finite.
std::optional<TTest> welch_t(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace attnlab::stats
