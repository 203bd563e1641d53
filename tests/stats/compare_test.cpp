// Pair comparisons as `attnlab compare` makes them, family by family,
// against SciPy 1.10 and Holm by definition (data/stats/compare.json), and
// each degenerate case with its exact expected value.
#include "stats/compare.hpp"

#include <cmath>
#include <stdexcept>

#include "stats_golden.hpp"

namespace attnlab::stats {
namespace {

using testing::expect_scipy;
using testing::golden_values;
using testing::json;

void expect_optional(const std::optional<double>& ours, const json& golden, const std::string& what) {
  if (golden.is_null()) {
    EXPECT_FALSE(ours.has_value()) << what << ": SciPy has none";
    return;
  }
  ASSERT_TRUE(ours.has_value()) << what;
  expect_scipy(*ours, golden, what);
}

TEST(Compare, FamiliesEqualScipyAndHolm) {
  const auto g = testing::load_golden("stats/compare.json");
  ASSERT_EQ(g.at("seeds_to_claim").get<std::size_t>(), seeds_to_claim);
  const double alpha = g.at("alpha");
  std::size_t pairs = 0;
  for (const auto& f : g.at("families")) {
    const std::string table = f.at("table");
    const Pairing pairing = f.at("pairing") == "paired" ? Pairing::paired : Pairing::unpaired;
    std::vector<Comparison> family;
    for (const auto& c : f.at("pairs"))
      family.push_back(compare(golden_values(c.at("a_values")), golden_values(c.at("b_values")), pairing));
    decide(family, alpha);
    for (std::size_t k = 0; k < family.size(); ++k) {
      const auto& c = f.at("pairs")[k];
      const Comparison& ours = family[k];
      const std::string name = table + ": " + c.at("a").get<std::string>() + " vs " + c.at("b").get<std::string>();
      EXPECT_EQ(test_name(ours.pairing), c.at("test").get<std::string>()) << name;
      EXPECT_EQ(ours.n_a, c.at("n_a").get<std::size_t>()) << name;
      EXPECT_EQ(ours.n_b, c.at("n_b").get<std::size_t>()) << name;
      expect_scipy(ours.mean_a, c.at("mean_a"), name + " mean_a");
      expect_scipy(ours.mean_b, c.at("mean_b"), name + " mean_b");
      expect_scipy(ours.diff, c.at("diff"), name + " diff");
      expect_scipy(ours.ci95, c.at("ci95"), name + " ci95");
      expect_optional(ours.t, c.at("t"), name + " t");
      if (!c.at("df").is_null()) expect_optional(ours.df, c.at("df"), name + " df");
      expect_optional(ours.p, c.at("p"), name + " p");
      expect_optional(ours.p_holm, c.at("p_holm"), name + " p_holm");
      expect_scipy(ours.p_a_gt_b, c.at("p_a_gt_b"), name + " p_a_gt_b");
      EXPECT_EQ(verdict_text(ours.verdict), c.at("verdict").get<std::string>()) << name;
      EXPECT_EQ(ours.too_few_seeds, c.at("too_few_seeds").get<bool>()) << name;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 6u + 6u + 1u + 6u);
}

TEST(Compare, IdenticalRowsAreIdentical) {
  // Both rows 1.0000 on every seed.
  std::vector<Comparison> f = {compare({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, Pairing::paired)};
  EXPECT_EQ(f[0].verdict, Verdict::identical);  // known before Holm
  decide(f);
  const Comparison& c = f[0];
  EXPECT_EQ(c.diff, 0.0);
  EXPECT_EQ(*c.p, 1.0);
  EXPECT_EQ(*c.p_holm, 1.0);
  EXPECT_EQ(*c.t, 0.0);
  EXPECT_EQ(*c.ci95, (Interval{0, 0}));
  EXPECT_EQ(c.p_a_gt_b, 0.5);
  EXPECT_EQ(verdict_text(c.verdict), "identical");
  EXPECT_FALSE(c.too_few_seeds);
  // Unpaired: every value on both sides the same number, whatever the counts.
  std::vector<Comparison> u = {compare({0.5, 0.5, 0.5}, {0.5, 0.5, 0.5, 0.5, 0.5}, Pairing::unpaired)};
  decide(u);
  EXPECT_EQ(u[0].verdict, Verdict::identical);
  EXPECT_EQ(*u[0].p, 1.0);
  EXPECT_EQ(test_name(u[0].pairing), "Welch t");
  // Paired rows equal seed by seed, though the seeds differ: no difference anywhere.
  std::vector<Comparison> s = {compare({0.9, 0.8, 0.85}, {0.9, 0.8, 0.85}, Pairing::paired)};
  decide(s);
  EXPECT_EQ(s[0].verdict, Verdict::identical);
  EXPECT_TRUE(s[0].too_few_seeds);
}

TEST(Compare, ZeroSpreadWithADifferenceIsAClaim) {
  // Every seed 1.0 against every seed 0.5: each difference is 0.5; SciPy 1.10: t = inf, p = 0.
  std::vector<Comparison> f = {compare({1, 1, 1, 1, 1}, {0.5, 0.5, 0.5, 0.5, 0.5}, Pairing::paired),
                               compare({0.5, 0.5, 0.5, 0.5, 0.5}, {1, 1, 1, 1, 1}, Pairing::unpaired)};
  decide(f);
  EXPECT_EQ(f[0].diff, 0.5);
  EXPECT_EQ(*f[0].t, INFINITY);
  EXPECT_EQ(*f[0].p, 0.0);
  EXPECT_EQ(*f[0].p_holm, 0.0);
  EXPECT_EQ(*f[0].ci95, (Interval{0.5, 0.5}));
  EXPECT_EQ(f[0].p_a_gt_b, 1.0);
  EXPECT_EQ(verdict_text(f[0].verdict), "A > B");
  EXPECT_EQ(f[1].diff, -0.5);
  EXPECT_EQ(*f[1].t, -INFINITY);
  EXPECT_TRUE(std::isnan(*f[1].df));  // Welch's df is 0/0 with both sides constant
  EXPECT_EQ(f[1].p_a_gt_b, 0.0);
  EXPECT_EQ(verdict_text(f[1].verdict), "A < B");
}

TEST(Compare, OneSeedIsNoTestAndNoInterval) {
  std::vector<Comparison> f = {compare({0.9}, {0.8}, Pairing::paired),
                               compare({0.9}, {0.8, 0.85, 0.82, 0.84, 0.83}, Pairing::unpaired),
                               compare({0.2, 0.25, 0.21, 0.22, 0.24}, {0.8, 0.85, 0.82, 0.84, 0.83}, Pairing::unpaired)};
  decide(f);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_FALSE(f[k].ci95.has_value()) << k;
    EXPECT_FALSE(f[k].t.has_value()) << k;
    EXPECT_FALSE(f[k].df.has_value()) << k;
    EXPECT_FALSE(f[k].p.has_value()) << k;
    EXPECT_FALSE(f[k].p_holm.has_value()) << k;
    EXPECT_EQ(f[k].verdict, Verdict::no_evidence) << k;
    EXPECT_TRUE(f[k].too_few_seeds) << k;
  }
  EXPECT_NEAR(f[0].diff, 0.1, 1e-15);
  EXPECT_EQ(f[0].p_a_gt_b, 1.0);
  EXPECT_NEAR(f[1].diff, 0.9 - 0.828, 1e-15);
  EXPECT_EQ(f[1].p_a_gt_b, 1.0);
  // The untested pairs are left out of the family: the third pair's p_holm is its own p (m = 1).
  EXPECT_EQ(*f[2].p_holm, *f[2].p);
  EXPECT_EQ(f[2].verdict, Verdict::a_lt_b);
  EXPECT_FALSE(f[2].too_few_seeds);
}

TEST(Compare, FewerThanFiveSeedsSaysSoBesideTheVerdict) {
  // Differences 0.2, 0.21, 0.19, 0.2: p ≈ 1e-4, a claim, with four seeds.
  std::vector<Comparison> f = {compare({0.9, 0.91, 0.89, 0.9}, {0.7, 0.7, 0.7, 0.7}, Pairing::paired)};
  decide(f);
  EXPECT_EQ(f[0].verdict, Verdict::a_gt_b);
  EXPECT_TRUE(f[0].too_few_seeds);
  EXPECT_EQ(too_few_seeds_text, "n < 5: too few seeds to claim");
}

TEST(Compare, HolmDecidesTheVerdict) {
  // Alone, p = 0.0294 < 0.05 is a claim; beside a pair with p = 0.03 Holm gives
  // both 2·0.0294 and max(0.0588, 0.03): no evidence for either.
  const std::vector<double> a = {0.621, 0.598, 0.664, 0.587, 0.640}, b = {0.655, 0.603, 0.671, 0.622, 0.668};
  std::vector<Comparison> alone = {compare(a, b, Pairing::paired)};
  decide(alone);
  ASSERT_NEAR(*alone[0].p, 0.029404060786647337, 1e-12);
  EXPECT_EQ(alone[0].verdict, Verdict::a_lt_b);
  std::vector<Comparison> two = {compare(a, b, Pairing::paired), compare(a, b, Pairing::paired)};
  decide(two);
  EXPECT_NEAR(*two[0].p_holm, 2 * 0.029404060786647337, 1e-12);
  EXPECT_EQ(two[0].verdict, Verdict::no_evidence);
  EXPECT_EQ(two[1].verdict, Verdict::no_evidence);
  // Until decide() runs, no verdict but identical is known.
  EXPECT_EQ(compare(a, b, Pairing::paired).verdict, Verdict::pending);
  EXPECT_THROW(decide(two, 0.0), std::invalid_argument);
  EXPECT_THROW(decide(two, 1.0), std::invalid_argument);
}

TEST(Compare, RefusesWhatIsMissing) {
  auto message = [](const std::vector<double>& a, const std::vector<double>& b, Pairing p) {
    try {
      compare(a, b, p);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_EQ(message({}, {0.5}, Pairing::unpaired), "compare: A has no values");
  EXPECT_EQ(message({0.5}, {}, Pairing::paired), "compare: B has no values");
  EXPECT_EQ(message({0.5, 0.6}, {0.5}, Pairing::paired),
            "compare: a paired comparison needs one B value per A value (the same seeds): A has 2, B has 1");
  EXPECT_EQ(message({0.5, NAN}, {0.5, 0.6}, Pairing::paired),
            "compare: A[1] is nan (leave failed runs out, and count them)");
}

}  // namespace
}  // namespace attnlab::stats
