// The Mann–Whitney U statistic: how many of the n_a·n_b pairs (a_i, b_j)
// A wins, ties counting one half.
#pragma once

#include <vector>

namespace attnlab::stats {

/// U_A = #{(i, j): a_i > b_j} + ½·#{(i, j): a_i = b_j} (Mann & Whitney 1947;
/// SciPy's mannwhitneyu(a, b).statistic, which it computes from midranks as
/// R_A − n_a(n_a + 1)/2: the same number). A count in halves, so exact in
/// double; 0 ≤ U_A ≤ n_a·n_b and U_A + U_B = n_a·n_b. Counted pair by pair,
/// O(n_a·n_b), which is nothing at seed counts. No p-value: attnlab's test
/// is the t test; with 3 seeds a side no exact rank test can reach p < 0.05
/// (seed_statistics_notes B.3). Throws std::invalid_argument when a or b is
/// empty or a value is not finite.
double mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace attnlab::stats
