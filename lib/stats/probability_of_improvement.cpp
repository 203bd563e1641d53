#include "stats/probability_of_improvement.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "stats/mann_whitney.hpp"
#include "stats/require.hpp"

namespace attnlab::stats {

double p_a_gt_b_unpaired(const std::vector<double>& a, const std::vector<double>& b) {
  const double u = mann_whitney_u(a, b);  // checks a and b
  return u / (static_cast<double>(a.size()) * static_cast<double>(b.size()));
}

double p_a_gt_b_paired(const std::vector<double>& a, const std::vector<double>& b) {
  require_finite_values(a, "p_a_gt_b_paired", "A");
  require_finite_values(b, "p_a_gt_b_paired", "B");
  if (a.size() != b.size())
    throw std::invalid_argument(fmt::format(
        "p_a_gt_b_paired: one B value per A value (the same seeds) is needed: A has {}, B has {}", a.size(), b.size()));
  double wins = 0;
  for (std::size_t i = 0; i < a.size(); ++i) wins += a[i] > b[i] ? 1.0 : a[i] == b[i] ? 0.5 : 0.0;
  return wins / static_cast<double>(a.size());
}

}  // namespace attnlab::stats
