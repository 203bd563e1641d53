// Closed intervals of the real line: a confidence interval, and the range a
// metric can take (an accuracy lies in [0, 1]; a loss in [0, inf)).
#pragma once

#include <limits>

namespace attnlab::stats {

/// [low, high], low ≤ high. Same units as the figure it bounds.
struct Interval {
  double low = 0, high = 0;
  friend bool operator==(const Interval&, const Interval&) = default;
};

/// The values a metric can take; unbounded by default.
struct Range {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
};

/// The range of a fraction such as an accuracy.
inline constexpr Range unit_range{0.0, 1.0};

/// The two-sided t interval center ± t_{(1+level)/2, df}·se (Student 1908;
/// the interval of Colas et al. 2018, §3, for a handful of seeds). se = 0
/// gives [center, center] without consulting df (which may then be NaN:
/// Welch's df is 0/0 when both samples are constant). Units: those of
/// center and se. Throws std::invalid_argument when center or se is not
/// finite, se < 0, level is not in (0, 1), or se > 0 and df is not
/// finite and > 0.
Interval t_interval(double center, double se, double df, double level = 0.95);

/// `i` clipped to `range` (each end moved inside it). Throws
/// std::invalid_argument when range.low > range.high or an end is NaN.
Interval clip(Interval i, Range range);

}  // namespace attnlab::stats
