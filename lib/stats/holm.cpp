#include "stats/holm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace attnlab::stats {

std::vector<double> holm(const std::vector<double>& p) {
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!(p[i] >= 0 && p[i] <= 1)) throw std::invalid_argument(fmt::format("holm: p[{}] = {} is not in [0, 1]", i, p[i]));
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);  // positions of p, smallest p first
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  std::vector<double> adjusted(m);
  double running = 0;  // the step-down's max over the smaller p-values: keeps the adjusted values monotone
  for (std::size_t k = 0; k < m; ++k) {
    const double scaled = std::min(1.0, static_cast<double>(m - k) * p[order[k]]);
    running = std::max(running, scaled);
    adjusted[order[k]] = running;
  }
  return adjusted;
}

}  // namespace attnlab::stats
