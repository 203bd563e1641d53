// P(A > B), the probability of improvement (Agarwal et al. 2021, "Deep RL at
// the Edge of the Statistical Precipice", rliable's
// metrics.probability_of_improvement; Bouthillier et al. 2021; the
// Vargha–Delaney A₁₂ effect size): how often A's figure beats B's, ties
// counting one half. 1: A always better; 0.5: no tendency; 0: B always
// better. Unitless, in [0, 1].
#pragma once

#include <vector>

namespace attnlab::stats {

/// Rows run on different seeds: U_A/(n_a·n_b), the share of all pairs
/// (a_i, b_j) that A wins (mann_whitney_u). Throws std::invalid_argument
/// when a or b is empty or a value is not finite.
double p_a_gt_b_unpaired(const std::vector<double>& a, const std::vector<double>& b);

/// Rows run on the same seeds (a[i] and b[i] from seed i): the share of
/// seeds where A beats B, #{i: a_i > b_i} + ½·#{i: a_i = b_i}, over n.
/// Comparing a_i with b_j of another seed would mix in the seeds' own
/// spread, which pairing removes. Throws std::invalid_argument when a or b
/// is empty, a value is not finite, or they differ in length.
double p_a_gt_b_paired(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace attnlab::stats
