// The paired t test against SciPy 1.10's ttest_rel (data/stats/paired_t.json),
// and the cases where SciPy answers NaN, which attnlab defines.
#include "stats/paired_t.hpp"

#include <cmath>
#include <stdexcept>

#include "stats/t_distribution.hpp"
#include "stats_golden.hpp"

namespace attnlab::stats {
namespace {

using testing::expect_scipy;
using testing::golden_values;

TEST(PairedT, EqualsScipy) {
  const auto cases = testing::golden_cases("paired_t.json");
  ASSERT_EQ(cases.size(), 11u);
  int compared = 0;
  for (const auto& c : cases) {
    const std::string name = c.at("name");
    if (c.at("p").is_null()) continue;  // SciPy's NaN: the definitions below
    const auto r = paired_t(golden_values(c.at("a")), golden_values(c.at("b")));
    ASSERT_TRUE(r) << name;
    expect_scipy(r->t, c.at("t"), name + " t");
    expect_scipy(r->p, c.at("p"), name + " p");
    expect_scipy(r->df, c.at("df"), name + " df");
    expect_scipy(r->estimate, c.at("estimate"), name + " estimate");
    expect_scipy(std::optional<Interval>(r->ci95), c.at("ci95"), name + " ci95");
    ++compared;
  }
  EXPECT_EQ(compared, 8);
}

TEST(PairedT, SmallPValuesKeepTheirDigits) {
  // large_difference: p = 1.72e-8; the 1e-9 check above could not tell it from 0.
  for (const auto& c : testing::golden_cases("paired_t.json"))
    if (c.at("name") == "large_difference") {
      const double p = c.at("p");
      EXPECT_NEAR(paired_t(golden_values(c.at("a")), golden_values(c.at("b")))->p, p, 1e-9 * p);
      return;
    }
  FAIL() << "no large_difference case";
}

TEST(PairedT, EqualDifferencesAreAnInfiniteStatistic) {
  // Every seed 0.25 apart (dyadic: exact). SciPy 1.10: t = inf, p = 0 (it divides by se = 0).
  const auto r = paired_t({0.75, 0.5, 0.625, 1.0}, {0.5, 0.25, 0.375, 0.75});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->estimate, 0.25);
  EXPECT_EQ(r->se, 0.0);
  EXPECT_EQ(r->df, 3.0);
  EXPECT_EQ(r->t, INFINITY);
  EXPECT_EQ(r->p, 0.0);
  EXPECT_EQ(r->ci95, (Interval{0.25, 0.25}));
  const auto s = paired_t({0.5, 0.25, 0.375, 0.75}, {0.75, 0.5, 0.625, 1.0});
  EXPECT_EQ(s->t, -INFINITY);
  EXPECT_EQ(s->p, 0.0);
  EXPECT_EQ(s->ci95, (Interval{-0.25, -0.25}));
}

TEST(PairedT, IdenticalOnEverySeedIsNoDifference) {
  // SciPy 1.10: NaN (0/0). attnlab: t = 0, p = 1, the interval [0, 0].
  for (const auto& v : {std::vector<double>{0.9, 0.8, 0.85, 0.7, 0.95}, std::vector<double>{1, 1, 1, 1, 1}}) {
    const auto r = paired_t(v, v);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->estimate, 0.0);
    EXPECT_EQ(r->t, 0.0);
    EXPECT_EQ(r->p, 1.0);
    EXPECT_EQ(r->ci95, (Interval{0.0, 0.0}));
  }
}

TEST(PairedT, OnePairIsNoTest) {
  EXPECT_FALSE(paired_t({0.9}, {0.8}).has_value());  // SciPy 1.10: NaN, df 0
}

TEST(PairedT, TwoPairsByHand) {
  // d = 0.2, 0.05: mean 0.125, sd = 0.15/√2, se = 0.075, t = 5/3, df 1;
  // p = 2·F_1(−5/3) = 1 − 2·atan(5/3)/π (Cauchy).
  const auto r = paired_t({0.9, 0.8}, {0.7, 0.75});
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->estimate, 0.125, 1e-15);
  EXPECT_NEAR(r->se, 0.075, 1e-15);
  EXPECT_NEAR(r->t, 5.0 / 3.0, 1e-13);
  EXPECT_NEAR(r->p, 1 - 2 * std::atan(5.0 / 3.0) / M_PI, 1e-13);
  EXPECT_NEAR(r->ci95.high - r->ci95.low, 2 * t_quantile(0.975, 1) * 0.075, 1e-12);
}

TEST(PairedT, RefusesWhatIsMissing) {
  auto message = [](const std::vector<double>& a, const std::vector<double>& b) {
    try {
      paired_t(a, b);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_EQ(message({}, {0.5}), "paired_t: A has no values");
  EXPECT_EQ(message({0.5}, {}), "paired_t: B has no values");
  EXPECT_EQ(message({0.5, 0.6}, {0.5}),
            "paired_t: one B value per A value (the same seeds) is needed: A has 2, B has 1");
  EXPECT_EQ(message({0.5, INFINITY}, {0.5, 0.6}), "paired_t: A[1] is inf (leave failed runs out, and count them)");
}

}  // namespace
}  // namespace attnlab::stats
