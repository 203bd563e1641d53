// Welch's t test against SciPy 1.10's ttest_ind(equal_var=False)
// (data/stats/welch_t.json), and the cases where SciPy answers NaN.
#include "stats/welch_t.hpp"

#include <cmath>
#include <stdexcept>

#include "stats_golden.hpp"

namespace attnlab::stats {
namespace {

using testing::expect_scipy;
using testing::golden_values;

TEST(WelchT, EqualsScipy) {
  const auto cases = testing::golden_cases("welch_t.json");
  ASSERT_EQ(cases.size(), 11u);
  int compared = 0;
  for (const auto& c : cases) {
    const std::string name = c.at("name");
    if (c.at("p").is_null()) continue;  // SciPy's NaN: the definitions below
    const auto r = welch_t(golden_values(c.at("a")), golden_values(c.at("b")));
    ASSERT_TRUE(r) << name;
    expect_scipy(r->t, c.at("t"), name + " t");
    expect_scipy(r->p, c.at("p"), name + " p");
    expect_scipy(r->estimate, c.at("diff"), name + " diff");
    if (!c.at("df").is_null()) {  // null: both sides constant, df = 0/0 (below)
      expect_scipy(r->df, c.at("df"), name + " df");
      expect_scipy(std::optional<Interval>(r->ci95), c.at("ci95"), name + " ci95");
    }
    ++compared;
  }
  EXPECT_EQ(compared, 9);
}

TEST(WelchT, SmallPValuesKeepTheirDigits) {
  // large_difference: p = 7.96e-14.
  for (const auto& c : testing::golden_cases("welch_t.json"))
    if (c.at("name") == "large_difference") {
      const double p = c.at("p");
      EXPECT_NEAR(welch_t(golden_values(c.at("a")), golden_values(c.at("b")))->p, p, 1e-9 * p);
      return;
    }
  FAIL() << "no large_difference case";
}

TEST(WelchT, OneConstantSideTakesTheOthersDegreesOfFreedom) {
  // s_a = 0: df = (s_b²/n_b)² / ((s_b²/n_b)²/(n_b − 1)) = n_b − 1 = 4.
  const auto r = welch_t({1, 1, 1, 1, 1}, {0.9, 0.95, 0.85, 0.92, 0.88});
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->df, 4.0, 1e-12);
  EXPECT_GT(r->t, 0);
}

TEST(WelchT, BothSidesConstantAndApartIsAnInfiniteStatistic) {
  // SciPy 1.10: t = inf, p = 0 (it sets the undefined df to 1; any df gives the same).
  const auto r = welch_t({1, 1, 1}, {0.5, 0.5, 0.5, 0.5});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->estimate, 0.5);
  EXPECT_EQ(r->se, 0.0);
  EXPECT_TRUE(std::isnan(r->df));  // 0/0: attnlab says undefined
  EXPECT_EQ(r->t, INFINITY);
  EXPECT_EQ(r->p, 0.0);
  EXPECT_EQ(r->ci95, (Interval{0.5, 0.5}));
  EXPECT_EQ(welch_t({0.5, 0.5}, {1, 1, 1})->t, -INFINITY);
}

TEST(WelchT, BothSidesTheSameConstantIsNoDifference) {
  // SciPy 1.10: NaN. attnlab: t = 0, p = 1, [0, 0].
  const auto r = welch_t({1, 1, 1}, {1, 1, 1, 1});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->estimate, 0.0);
  EXPECT_EQ(r->t, 0.0);
  EXPECT_EQ(r->p, 1.0);
  EXPECT_EQ(r->ci95, (Interval{0.0, 0.0}));
}

TEST(WelchT, ASideWithOneValueIsNoTest) {
  EXPECT_FALSE(welch_t({0.9}, {0.8, 0.85, 0.82}).has_value());  // SciPy 1.10: NaN
  EXPECT_FALSE(welch_t({0.8, 0.85, 0.82}, {0.9}).has_value());
  EXPECT_FALSE(welch_t({0.9}, {0.9}).has_value());
}

TEST(WelchT, RefusesWhatIsMissing) {
  try {
    welch_t({0.5, 0.6}, {});
    FAIL() << "empty B accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "welch_t: B has no values");
  }
  EXPECT_THROW(welch_t({}, {0.5}), std::invalid_argument);
  EXPECT_THROW(welch_t({NAN, 0.5}, {0.5, 0.6}), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::stats
