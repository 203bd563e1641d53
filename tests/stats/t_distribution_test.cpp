// Boost.Math's Student t against data/stats/t_distribution.json: the
// quantile and CDF to 1e-12 relative of mpmath's 50-digit figures; the CDF
// to 1e-12 relative of SciPy 1.10's stats.t.cdf too; the quantile to SciPy's
// stats.t.ppf only as close as SciPy comes to the exact value.
#include "stats/t_distribution.hpp"

#include <cmath>
#include <stdexcept>

#include "stats_golden.hpp"

namespace attnlab::stats {
namespace {

using testing::golden_number;

// Relative: quantiles reach 3e5 (p = 1e-6, df = 1), tail probabilities 1e-300.
constexpr double tolerance = 1e-12;
// SciPy 1.10's t.ppf inverts CDFLIB's cdft by a search that stops early: it
// is 2.56e-9 (relative) from the exact quantile at worst on this grid (the
// golden's scipy_worst_relative_error; e.g. t.ppf(0.975, 1) = 12.706204736432
// where tan(0.475π) = 12.706204736174707). Boost is within 1e-15 of exact.
constexpr double scipy_ppf_tolerance = 3e-9;

TEST(TDistribution, QuantileEqualsTheExactValue) {
  const auto golden = testing::load_golden("stats/t_distribution.json");
  ASSERT_EQ(golden.at("ppf").size(), 13u * 11u);
  for (const auto& c : golden.at("ppf")) {
    const double p = c.at("p"), df = c.at("df"), x = golden_number(c.at("x")), scipy = golden_number(c.at("scipy"));
    const double ours = t_quantile(p, df);
    EXPECT_NEAR(ours, x, tolerance * std::fabs(x)) << "quantile(" << p << ", " << df << ") against mpmath";
    EXPECT_NEAR(ours, scipy, scipy_ppf_tolerance * std::max(std::fabs(x), 1.0))
        << "t.ppf(" << p << ", " << df << ") against SciPy";
  }
  EXPECT_LT(golden.at("scipy_worst_relative_error").at("ppf").get<double>(), scipy_ppf_tolerance);
}

TEST(TDistribution, CdfEqualsTheExactValueAndScipy) {
  const auto golden = testing::load_golden("stats/t_distribution.json");
  ASSERT_EQ(golden.at("cdf").size(), 13u * 11u);
  for (const auto& c : golden.at("cdf")) {
    const double x = c.at("x"), df = c.at("df"), p = golden_number(c.at("p")), scipy = golden_number(c.at("scipy"));
    const double ours = t_cdf(x, df);
    EXPECT_NEAR(ours, p, tolerance * p) << "cdf(" << x << ", " << df << ") against mpmath";
    EXPECT_NEAR(ours, scipy, tolerance * scipy) << "t.cdf(" << x << ", " << df << ") against SciPy";
    if (x <= 0) {  // SciPy's two-sided p is stdtr(df, -|t|)*2: twice this lower tail, with its digits
      EXPECT_NEAR(t_two_sided_p(-x, df), 2 * p, tolerance * 2 * p) << "two-sided p of t = " << -x << ", df " << df;
    }
  }
}

TEST(TDistribution, KnownValues) {
  // df = 1 is the Cauchy distribution: F(x) = 1/2 + atan(x)/π, quantile tan(π(p − 1/2)).
  EXPECT_NEAR(t_cdf(1.0, 1), 0.75, 1e-15);
  EXPECT_NEAR(t_quantile(0.75, 1), 1.0, 1e-15);
  // df = 2: F(x) = 1/2 + x / (2√(2 + x²)); at x = √2: 1/2 + √2/(2·2) = 0.8535533905932737.
  EXPECT_NEAR(t_cdf(std::sqrt(2.0), 2), 0.5 + std::sqrt(2.0) / 4, 1e-15);
  EXPECT_EQ(t_cdf(0.0, 3.7), 0.5);
  EXPECT_EQ(t_cdf(INFINITY, 4), 1.0);
  EXPECT_EQ(t_cdf(-INFINITY, 4), 0.0);
  EXPECT_EQ(t_two_sided_p(INFINITY, 4), 0.0);
  EXPECT_EQ(t_two_sided_p(-INFINITY, 4), 0.0);
  EXPECT_EQ(t_two_sided_p(0.0, 4), 1.0);
}

TEST(TDistribution, RefusesWhatHasNoAnswer) {
  EXPECT_THROW(t_cdf(1.0, 0), std::invalid_argument);
  EXPECT_THROW(t_cdf(1.0, -2), std::invalid_argument);
  EXPECT_THROW(t_cdf(1.0, NAN), std::invalid_argument);
  EXPECT_THROW(t_cdf(1.0, INFINITY), std::invalid_argument);
  EXPECT_THROW(t_cdf(NAN, 3), std::invalid_argument);
  EXPECT_THROW(t_quantile(0.0, 3), std::invalid_argument);  // −inf
  EXPECT_THROW(t_quantile(1.0, 3), std::invalid_argument);  // +inf
  EXPECT_THROW(t_quantile(NAN, 3), std::invalid_argument);
  EXPECT_THROW(t_two_sided_p(NAN, 3), std::invalid_argument);
  try {
    t_quantile(0.975, 0);
    FAIL() << "df = 0 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "t_quantile: degrees of freedom must be finite and > 0, got 0");
  }
}

}  // namespace
}  // namespace attnlab::stats
