// Holm's step-down adjustment: a table that makes m comparisons at once
// would find one "significant" by luck in about m·α of them; Holm's method
// keeps the chance of any false claim in the whole family at α, like
// Bonferroni's, and is uniformly more powerful than it.
#pragma once

#include <vector>

namespace attnlab::stats {

/// Holm-adjusted p-values (Holm 1979, "A simple sequentially rejective
/// multiple test procedure"; statsmodels' multipletests(method="holm")):
/// with p_(1) ≤ … ≤ p_(m) the values sorted ascending,
///   p̃_(k) = max_{j ≤ k} min(1, (m − j + 1)·p_(j)),
/// returned in the order given. Rejecting where p̃ < α is Holm's procedure
/// at level α. Each p̃ ≥ its p, never above 1, and the adjusted values keep
/// the order of the raw ones (tied p-values get the same p̃). An empty family
/// gives an empty list. Unitless. Throws std::invalid_argument naming the
/// index of a p-value that is NaN or outside [0, 1].
std::vector<double> holm(const std::vector<double>& p);

}  // namespace attnlab::stats
