#include "stats/paired_t.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "stats/require.hpp"
#include "stats/summary.hpp"
#include "stats/t_distribution.hpp"

namespace attnlab::stats {

std::optional<TTest> paired_t(const std::vector<double>& a, const std::vector<double>& b) {
  require_finite_values(a, "paired_t", "A");
  require_finite_values(b, "paired_t", "B");
  if (a.size() != b.size())
    throw std::invalid_argument(
        fmt::format("paired_t: one B value per A value (the same seeds) is needed: A has {}, B has {}", a.size(), b.size()));
  if (a.size() < 2) return std::nullopt;
  std::vector<double> d(a.size());  // (n) per-seed differences
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  const double n = static_cast<double>(d.size());
  TTest r;
  r.estimate = mean(d);
  r.se = std::sqrt(sample_variance(d) / n);
  r.df = n - 1;
  if (r.se == 0) {  // every difference equal (sample_variance is exactly 0 then)
    r.t = r.estimate == 0 ? 0.0 : std::copysign(INFINITY, r.estimate);
    r.p = r.estimate == 0 ? 1.0 : 0.0;
  } else {
    r.t = r.estimate / r.se;
    r.p = t_two_sided_p(r.t, r.df);
  }
  r.ci95 = t_interval(r.estimate, r.se, r.df);
  return r;
}

}  // namespace attnlab::stats
