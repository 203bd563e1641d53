// mean, std, n and the clipped 95 % interval of the mean against SciPy 1.10
// (data/stats/summary.json), and the cases SciPy leaves undefined.
#include "stats/summary.hpp"

#include <cmath>
#include <stdexcept>

#include "stats/t_distribution.hpp"
#include "stats_golden.hpp"

namespace attnlab::stats {
namespace {

using testing::expect_scipy;
using testing::golden_number;

TEST(Summarise, EqualsScipy) {
  const auto cases = testing::golden_cases("summary.json");
  ASSERT_EQ(cases.size(), 8u);
  for (const auto& c : cases) {
    const std::string name = c.at("name");
    const Range range{golden_number(c.at("range")[0]), golden_number(c.at("range")[1])};
    const Summary s = summarise(testing::golden_values(c.at("values")), range, name);
    EXPECT_EQ(s.n, c.at("n").get<std::size_t>()) << name;
    expect_scipy(s.mean, c.at("mean"), name + " mean");
    if (s.n > 1) expect_scipy(s.std, c.at("std"), name + " std");
    expect_scipy(s.ci95, c.at("ci95"), name + " ci95");
  }
}

TEST(Summarise, ClipsTheIntervalToTheMetricsRange) {
  // 0.62, 0.70: mean 0.66, sd 0.04·√2, se 0.04, t_{0.975,1} = 12.706: [0.152, 1.168] before clipping.
  const Summary s = summarise({0.62, 0.70}, unit_range);
  ASSERT_TRUE(s.ci95);
  EXPECT_EQ(s.ci95->high, 1.0);
  EXPECT_NEAR(s.ci95->low, 0.66 - t_quantile(0.975, 1) * 0.04, 1e-12);
  // Unbounded, the same values keep the whole interval.
  EXPECT_NEAR(summarise({0.62, 0.70}).ci95->high, 0.66 + t_quantile(0.975, 1) * 0.04, 1e-12);
}

TEST(Summarise, OneValueHasNoIntervalAndNoSpread) {
  const Summary s = summarise({0.93}, unit_range);
  EXPECT_EQ(s.n, 1u);
  EXPECT_EQ(s.mean, 0.93);
  EXPECT_TRUE(std::isnan(s.std));       // undefined, not 0
  EXPECT_FALSE(s.ci95.has_value());     // no interval, not [0.93, 0.93]
}

TEST(Summarise, ZeroSpreadIsAPointInterval) {
  // Every seed 1.0000 (an out-of-distribution accuracy that saturates).
  const Summary s = summarise({1.0, 1.0, 1.0, 1.0, 1.0}, unit_range);
  EXPECT_EQ(s.mean, 1.0);
  EXPECT_EQ(s.std, 0.0);
  ASSERT_TRUE(s.ci95);
  EXPECT_EQ(*s.ci95, (Interval{1.0, 1.0}));
  // 0.1 summed three times is 0.30000000000000004; the mean of equal values is exactly the value.
  const Summary t = summarise({0.1, 0.1, 0.1});
  EXPECT_EQ(t.mean, 0.1);
  EXPECT_EQ(t.std, 0.0);
  EXPECT_EQ(*t.ci95, (Interval{0.1, 0.1}));
}

TEST(Summarise, HandWorkedInterval) {
  // 1, 2, 3, 4: mean 2.5, sd √(5/3), se √(5/3)/2; t_{0.975,3} = 3.1824463052837086 (mpmath, 50
  // digits: data/stats/t_distribution.json; SciPy 1.10's t.ppf says 3.182446305284263).
  const Summary s = summarise({1, 2, 3, 4});
  EXPECT_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(5.0 / 3.0));
  const double half = 3.1824463052837086 * std::sqrt(5.0 / 3.0) / 2;
  EXPECT_NEAR(s.ci95->low, 2.5 - half, 1e-13);
  EXPECT_NEAR(s.ci95->high, 2.5 + half, 1e-13);
}

TEST(Summarise, RefusesEmptyNonFiniteAndOutOfRangeValues) {
  auto message = [](auto f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_EQ(message([] { summarise({}, unit_range, "accuracy of row '2'"); }),
            "summarise: accuracy of row '2' has no values");
  EXPECT_EQ(message([] { summarise({0.5, NAN}, unit_range, "accuracy"); }),
            "summarise: accuracy[1] is nan (leave failed runs out, and count them)");
  EXPECT_EQ(message([] { summarise({0.5, 1.25}, unit_range, "accuracy"); }),
            "summarise: accuracy[1] = 1.25 lies outside the metric's range [0, 1]");
  EXPECT_EQ(message([] { summarise({0.5}, Range{1, 0}, "accuracy"); }), "summarise: accuracy: not a range: [1, 0]");
  EXPECT_THROW(mean({}), std::invalid_argument);
  EXPECT_THROW(sample_variance({}), std::invalid_argument);
}

TEST(SampleVariance, IsBesselCorrectedAndUndefinedForOneValue) {
  EXPECT_DOUBLE_EQ(sample_variance({1, 2, 3, 4}), 5.0 / 3.0);
  EXPECT_TRUE(std::isnan(sample_variance({2.0})));
  EXPECT_EQ(sample_variance({0.7, 0.7}), 0.0);
}

}  // namespace
}  // namespace attnlab::stats
