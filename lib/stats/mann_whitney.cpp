#include "stats/mann_whitney.hpp"

#include "stats/require.hpp"

namespace attnlab::stats {

double mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  require_finite_values(a, "mann_whitney_u", "A");
  require_finite_values(b, "mann_whitney_u", "B");
  double u = 0;
  for (double x : a)
    for (double y : b) u += x > y ? 1.0 : x == y ? 0.5 : 0.0;
  return u;
}

}  // namespace attnlab::stats
