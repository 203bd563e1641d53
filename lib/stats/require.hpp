// The check every statistic makes of its input before computing anything:
// values to summarise must exist and be finite (a failed or diverged run is
// left out by the caller and counted, never passed in as NaN).
#pragma once

#include <string_view>
#include <vector>

namespace attnlab::stats {

/// Throws std::invalid_argument "<who>: <what> has no values" when `values`
/// is empty, or "<who>: <what>[i] is nan" naming the first value that is
/// not finite.
void require_finite_values(const std::vector<double>& values, std::string_view who, std::string_view what);

}  // namespace attnlab::stats
