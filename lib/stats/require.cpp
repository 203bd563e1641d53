#include "stats/require.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace attnlab::stats {

void require_finite_values(const std::vector<double>& values, std::string_view who, std::string_view what) {
  if (values.empty()) throw std::invalid_argument(fmt::format("{}: {} has no values", who, what));
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw std::invalid_argument(fmt::format("{}: {}[{}] is {} (leave failed runs out, and count them)", who, what, i,
                                              values[i]));
}

}  // namespace attnlab::stats
