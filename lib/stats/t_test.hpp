// What a two-sample t test gives: the estimated difference, its standard
// error, the statistic, the two-sided p-value and the 95 % interval. Shared
// by paired_t (Student 1908 on the differences) and welch_t (Welch 1947).
#pragma once

#include "stats/interval.hpp"

namespace attnlab::stats {

struct TTest {
  double estimate = 0;  // Δ, in the values' units: mean of the differences (paired) or mean(a) − mean(b) (Welch)
  double se = 0;        // standard error of Δ, same units; 0 when there is no spread
  double df = 0;        // degrees of freedom (paired: n − 1; Welch: Welch–Satterthwaite, NaN when se = 0)
  double t = 0;         // Δ / se: ±inf when se = 0 and Δ ≠ 0; 0 when se = 0 and Δ = 0
  double p = 1;         // two-sided: 2·P(T_df ≤ −|t|); 0 when t = ±inf; 1 when se = 0 and Δ = 0
  Interval ci95;        // Δ ± t_{0.975, df}·se; [Δ, Δ] when se = 0
};

}  // namespace attnlab::stats
