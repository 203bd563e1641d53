#include "stats/welch_t.hpp"

#include <cmath>

#include "stats/require.hpp"
#include "stats/summary.hpp"
#include "stats/t_distribution.hpp"

namespace attnlab::stats {

std::optional<TTest> welch_t(const std::vector<double>& a, const std::vector<double>& b) {
  require_finite_values(a, "welch_t", "A");
  require_finite_values(b, "welch_t", "B");
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double va = sample_variance(a) / na, vb = sample_variance(b) / nb;  // squared standard errors of the means
  TTest r;
  r.estimate = mean(a) - mean(b);
  r.se = std::sqrt(va + vb);
  if (r.se == 0) {  // both sides constant
    r.df = NAN;
    r.t = r.estimate == 0 ? 0.0 : std::copysign(INFINITY, r.estimate);
    r.p = r.estimate == 0 ? 1.0 : 0.0;
  } else {
    r.df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
    r.t = r.estimate / r.se;
    r.p = t_two_sided_p(r.t, r.df);
  }
  r.ci95 = t_interval(r.estimate, r.se, r.df);
  return r;
}

}  // namespace attnlab::stats
