// Student's t distribution: its CDF, quantile and two-sided tail, through
// Boost.Math (boost/math/distributions/students_t.hpp, header-only), the
// well-kept implementation SciPy's figures are checked against
// (tests/stats/t_distribution_test.cpp, data/stats/t_distribution.json).
#pragma once

namespace attnlab::stats {

/// P(T ≤ x) for T ~ Student's t with `df` degrees of freedom (Student 1908;
/// Boost.Math's students_t_distribution, which SciPy's stats.t.cdf matches
/// to 1e-12 relative in the tests). `df` need not be an integer (Welch's
/// degrees of freedom are not). x = ±inf gives 0 or 1.
/// Unitless. Throws std::invalid_argument when df is not finite and > 0, or
/// x is NaN.
double t_cdf(double x, double df);

/// The x with P(T ≤ x) = p: stats.t.ppf(p, df) in SciPy; t_quantile(0.975,
/// n − 1) is the multiplier of a 95 % interval of a mean of n values. Equal
/// to mpmath's 50-digit value to 1e-12 relative in the tests; SciPy 1.10's
/// t.ppf is up to 2.6e-9 (relative) off the exact value on the same grid.
/// Throws std::invalid_argument when p is not in (0, 1) (the quantiles of 0
/// and 1 are infinite) or df is not finite and > 0.
double t_quantile(double p, double df);

/// The two-sided p-value of a t statistic: 2·P(T ≤ −|t|), computed from
/// the lower tail so a small p keeps its digits (SciPy's _ttest_finish:
/// special.stdtr(df, −|t|)·2). t = ±inf gives 0. Throws
/// std::invalid_argument when t is NaN or df is not finite and > 0.
double t_two_sided_p(double t, double df);

}  // namespace attnlab::stats
