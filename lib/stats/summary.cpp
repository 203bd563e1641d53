#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stats/require.hpp"

namespace attnlab::stats {

namespace {

bool all_equal(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

}  // namespace

double mean(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("mean: no values");
  if (all_equal(values)) return values.front();
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double sample_variance(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("sample_variance: no values");
  if (values.size() == 1) return std::numeric_limits<double>::quiet_NaN();
  if (all_equal(values)) return 0.0;
  const double m = mean(values);
  double sq = 0;
  for (double v : values) sq += (v - m) * (v - m);
  return sq / static_cast<double>(values.size() - 1);
}

Summary summarise(const std::vector<double>& values, Range range, std::string_view what) {
  require_finite_values(values, "summarise", what);
  if (std::isnan(range.low) || std::isnan(range.high) || range.low > range.high)
    throw std::invalid_argument(fmt::format("summarise: {}: not a range: [{}, {}]", what, range.low, range.high));
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] < range.low || values[i] > range.high)
      throw std::invalid_argument(fmt::format("summarise: {}[{}] = {} lies outside the metric's range [{}, {}]", what, i,
                                              values[i], range.low, range.high));
  Summary s;
  s.n = values.size();
  s.mean = mean(values);
  if (s.n < 2) return s;  // std stays NaN, no interval
  s.std = std::sqrt(sample_variance(values));
  const double n = static_cast<double>(s.n);
  s.ci95 = clip(t_interval(s.mean, s.std / std::sqrt(n), n - 1), range);
  return s;
}

}  // namespace attnlab::stats
