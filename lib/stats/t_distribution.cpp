#include "stats/t_distribution.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace attnlab::stats {

namespace {

// Boost throws its own domain errors on a bad df; ours name the function
// and the value before Boost is reached.
boost::math::students_t_distribution<double> distribution(double df, const char* who) {
  if (!(std::isfinite(df) && df > 0))
    throw std::invalid_argument(fmt::format("{}: degrees of freedom must be finite and > 0, got {}", who, df));
  return boost::math::students_t_distribution<double>(df);
}

}  // namespace

double t_cdf(double x, double df) {
  const auto dist = distribution(df, "t_cdf");
  if (std::isnan(x)) throw std::invalid_argument("t_cdf: x is NaN");
  if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;
  return boost::math::cdf(dist, x);
}

double t_quantile(double p, double df) {
  const auto dist = distribution(df, "t_quantile");
  if (!(p > 0 && p < 1))
    throw std::invalid_argument(fmt::format("t_quantile: probability must be in (0, 1), got {}", p));
  return boost::math::quantile(dist, p);
}

double t_two_sided_p(double t, double df) {
  const auto dist = distribution(df, "t_two_sided_p");
  if (std::isnan(t)) throw std::invalid_argument("t_two_sided_p: t is NaN");
  if (std::isinf(t)) return 0.0;
  return 2.0 * boost::math::cdf(dist, -std::fabs(t));
}

}  // namespace attnlab::stats
