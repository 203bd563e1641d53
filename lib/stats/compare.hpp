// "Is A better than B?" for two rows of a table over seeds: the difference
// of their means with its 95 % interval, a t test (paired when the rows ran
// on the same seeds, else Welch's), P(A > B), and a verdict in words that is
// reached only after Holm's adjustment over every pair compared together.
// The practice it follows: Colas et al. 2018 ("How Many Random Seeds?") and
// 2019 (Welch's t as the robust default at small n), Henderson et al. 2018
// (two 5-seed runs of one algorithm can look different), Agarwal et al.
// 2021 (interval estimates and the probability of improvement), Holm 1979.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "stats/interval.hpp"

namespace attnlab::stats {

/// paired: a[i] and b[i] ran on the same seed (attnlab's sweeps: the same
/// `seed` fixes data and initial weights for both rows); unpaired: not.
enum class Pairing { paired, unpaired };

/// pending: decide() has not run over the pair's family yet.
enum class Verdict { pending, a_gt_b, a_lt_b, no_evidence, identical };

/// Fewer seeds than this on either side and the comparison says so: with 3
/// seeds a side no exact rank test can reach p < 0.05, and t tests on so few
/// values rest wholly on normality (seed_statistics_notes B.3).
inline constexpr std::size_t seeds_to_claim = 5;
inline constexpr std::string_view too_few_seeds_text = "n < 5: too few seeds to claim";

/// One pair A vs B. Units: diff, ci95, mean_a, mean_b are the metric's;
/// the rest are unitless.
struct Comparison {
  Pairing pairing = Pairing::unpaired;
  std::size_t n_a = 0, n_b = 0;
  double mean_a = 0, mean_b = 0;
  double diff = 0;                // Δ = mean(A) − mean(B) (paired: the mean of the per-seed differences, the same number)
  std::optional<Interval> ci95;   // Δ's 95 % interval; none without a test (a side with one value)
  std::optional<double> t;        // the t statistic (±inf: zero spread, Δ ≠ 0); none without a test
  std::optional<double> df;       // its degrees of freedom (NaN: Welch with both sides constant)
  std::optional<double> p;        // two-sided; 1 when identical; none without a test
  std::optional<double> p_holm;   // set by decide(): Holm-adjusted over the family; none when p is none
  double p_a_gt_b = 0.5;          // P(A > B), ties ½ (probability_of_improvement.hpp)
  Verdict verdict = Verdict::pending;
  bool too_few_seeds = false;     // n_a < 5 or n_b < 5: say too_few_seeds_text beside the verdict
};

/// Compares A with B, everything but p_holm and the verdict (decide()):
///   paired:   Δ, ci95, t, df, p of paired_t (Student's t on the per-seed
///             differences); P(A > B) = share of seeds where A beats B;
///   unpaired: Δ, ci95, t, df, p of welch_t (Welch 1947, Welch–Satterthwaite
///             df); P(A > B) = Mann–Whitney U_A/(n_a·n_b).
/// Defined cases:
///   identical (paired: a[i] = b[i] on every seed; unpaired: every value on
///     both sides the same number): Δ = 0, p = 1 (SciPy: NaN), P(A > B) = ½,
///     verdict `identical`; with a test also t = 0 and ci95 = [0, 0];
///   zero spread with Δ ≠ 0 (paired: every difference equal; unpaired: both
///     sides constant): t = ±inf, p = 0, ci95 = [Δ, Δ], as SciPy 1.10;
///   a side with one value: Δ and P(A > B) only; no interval, t, df or p;
///     the verdict will be `no evidence`.
/// Throws std::invalid_argument when A or B is empty ("compare: A has no
/// values"), a value is not finite (a failed run must be left out and
/// counted by the caller), or a paired comparison has n_a ≠ n_b.
Comparison compare(const std::vector<double>& a, const std::vector<double>& b, Pairing pairing);

/// Holm's step-down (holm.hpp) over the p-values of `family` (the pairs
/// compared together: one call of `attnlab compare`), then each verdict:
/// `identical` stays; otherwise `A > B` when p_holm < alpha and Δ > 0,
/// `A < B` when p_holm < alpha and Δ < 0, else `no evidence` (also for a
/// pair without a p-value, which is left out of the family: it has nothing
/// to adjust). Identical pairs count in the family with p = 1: they were
/// compared, and counting them can only make the others' claims more
/// cautious. Throws std::invalid_argument when alpha is not in (0, 1).
void decide(std::vector<Comparison>& family, double alpha = 0.05);

/// "A > B", "A < B", "no evidence", "identical", "pending".
std::string_view verdict_text(Verdict v);

/// "paired t" or "Welch t": the test a pairing gets.
std::string_view test_name(Pairing p);

}  // namespace attnlab::stats
