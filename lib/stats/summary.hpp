// What a row's figure is over its seeds: mean, sample standard deviation,
// n, and the 95 % confidence interval of the mean (Student t, n − 1 degrees
// of freedom), the format seed_statistics_notes B.4 recommends for a handful
// of seeds: "mean ± sd [lo, hi] n".
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "stats/interval.hpp"

namespace attnlab::stats {

/// The arithmetic mean Σx/n, summed in the order given (so a figure does not
/// depend on how runs were scheduled). Exact when all values are equal (a
/// sum of n equal values rounds; the mean of {x, x, x} is x). Units: those
/// of the values. Throws std::invalid_argument when `values` is empty.
double mean(const std::vector<double>& values);

/// The sample variance Σ(x − mean)²/(n − 1) (Bessel's correction; numpy's
/// var(ddof=1)), two passes. Exactly 0 when all values are equal; NaN when
/// n = 1 (undefined: no spread to estimate, never 0). Units: the values'
/// squared. Throws std::invalid_argument when `values` is empty.
double sample_variance(const std::vector<double>& values);

/// A figure over n seeds.
struct Summary {
  double mean = 0;                                       // the values' units
  double std = std::numeric_limits<double>::quiet_NaN();  // sample (n − 1); NaN when n = 1
  std::size_t n = 0;                                     // 0 only in a default-constructed (absent) summary
  std::optional<Interval> ci95;                          // none when n = 1: no interval, not a fake one
};

/// mean, std, n and the 95 % CI of the mean: mean ± t_{0.975, n−1}·std/√n
/// (Student 1908; recommended over the percentile bootstrap below n = 20 by
/// seed_statistics_notes B.3, and by Colas et al. 2018), clipped to `range`
/// (an accuracy's interval never leaves [0, 1]). With zero spread (all
/// values equal) the interval is [mean, mean]. n = 1 gives std NaN and no
/// interval. Throws std::invalid_argument naming `what` when `values` is
/// empty, a value is not finite, or a value lies outside `range`.
Summary summarise(const std::vector<double>& values, Range range = {}, std::string_view what = "values");

}  // namespace attnlab::stats
