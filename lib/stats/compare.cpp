#include "stats/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "stats/holm.hpp"
#include "stats/paired_t.hpp"
#include "stats/probability_of_improvement.hpp"
#include "stats/require.hpp"
#include "stats/summary.hpp"
#include "stats/welch_t.hpp"

namespace attnlab::stats {

namespace {

bool identical(const std::vector<double>& a, const std::vector<double>& b, Pairing pairing) {
  if (pairing == Pairing::paired) return a == b;
  const double x = a.front();
  auto is_x = [x](double v) { return v == x; };
  return std::all_of(a.begin(), a.end(), is_x) && std::all_of(b.begin(), b.end(), is_x);
}

}  // namespace

Comparison compare(const std::vector<double>& a, const std::vector<double>& b, Pairing pairing) {
  require_finite_values(a, "compare", "A");
  require_finite_values(b, "compare", "B");
  const bool paired = pairing == Pairing::paired;
  if (paired && a.size() != b.size())
    throw std::invalid_argument(fmt::format(
        "compare: a paired comparison needs one B value per A value (the same seeds): A has {}, B has {}", a.size(),
        b.size()));
  Comparison c;
  c.pairing = pairing;
  c.n_a = a.size();
  c.n_b = b.size();
  c.mean_a = mean(a);
  c.mean_b = mean(b);
  c.too_few_seeds = c.n_a < seeds_to_claim || c.n_b < seeds_to_claim;
  c.p_a_gt_b = paired ? p_a_gt_b_paired(a, b) : p_a_gt_b_unpaired(a, b);
  if (paired) {
    std::vector<double> d(a.size());  // (n) per-seed differences
    for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
    c.diff = mean(d);
  } else {
    c.diff = c.mean_a - c.mean_b;
  }
  const auto test = paired ? paired_t(a, b) : welch_t(a, b);
  if (test) {
    c.ci95 = test->ci95;
    c.t = test->t;
    c.df = test->df;
    c.p = test->p;
  }
  if (identical(a, b, pairing)) {  // what the tests give too (t = 0, p = 1), stated even without a test
    c.diff = 0;
    c.p = 1.0;
    c.verdict = Verdict::identical;
  }
  return c;
}

void decide(std::vector<Comparison>& family, double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument(fmt::format("decide: alpha must be in (0, 1), got {}", alpha));
  std::vector<double> p;
  std::vector<std::size_t> tested;  // positions in family of the pairs with a p-value
  for (std::size_t i = 0; i < family.size(); ++i)
    if (family[i].p) {
      p.push_back(*family[i].p);
      tested.push_back(i);
    }
  const std::vector<double> adjusted = holm(p);
  for (auto& c : family) c.p_holm.reset();
  for (std::size_t k = 0; k < tested.size(); ++k) family[tested[k]].p_holm = adjusted[k];
  for (auto& c : family) {
    if (c.verdict == Verdict::identical) continue;
    if (c.p_holm && *c.p_holm < alpha && c.diff != 0)
      c.verdict = c.diff > 0 ? Verdict::a_gt_b : Verdict::a_lt_b;
    else
      c.verdict = Verdict::no_evidence;
  }
}

std::string_view verdict_text(Verdict v) {
  switch (v) {
    case Verdict::a_gt_b: return "A > B";
    case Verdict::a_lt_b: return "A < B";
    case Verdict::no_evidence: return "no evidence";
    case Verdict::identical: return "identical";
    case Verdict::pending: break;
  }
  return "pending";
}

std::string_view test_name(Pairing p) { return p == Pairing::paired ? "paired t" : "Welch t"; }

}  // namespace attnlab::stats
