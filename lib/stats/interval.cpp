#include "stats/interval.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stats/t_distribution.hpp"

namespace attnlab::stats {

Interval t_interval(double center, double se, double df, double level) {
  if (!std::isfinite(center)) throw std::invalid_argument(fmt::format("t_interval: center is {}", center));
  if (!(std::isfinite(se) && se >= 0))
    throw std::invalid_argument(fmt::format("t_interval: standard error must be finite and >= 0, got {}", se));
  if (!(level > 0 && level < 1))
    throw std::invalid_argument(fmt::format("t_interval: level must be in (0, 1), got {}", level));
  if (se == 0) return {center, center};
  const double half = t_quantile(0.5 + level / 2, df) * se;
  return {center - half, center + half};
}

Interval clip(Interval i, Range range) {
  if (std::isnan(range.low) || std::isnan(range.high) || range.low > range.high)
    throw std::invalid_argument(fmt::format("clip: not a range: [{}, {}]", range.low, range.high));
  if (std::isnan(i.low) || std::isnan(i.high)) throw std::invalid_argument("clip: the interval has a NaN end");
  return {std::clamp(i.low, range.low, range.high), std::clamp(i.high, range.low, range.high)};
}

}  // namespace attnlab::stats
