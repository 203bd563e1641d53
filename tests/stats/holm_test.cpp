// Holm's step-down against the definition as scripts/make_stats_goldens.py
// computes it (data/stats/holm.json), and by hand.
#include "stats/holm.hpp"

#include <stdexcept>

#include "stats_golden.hpp"

namespace attnlab::stats {
namespace {

TEST(Holm, EqualsTheGoldens) {
  const auto cases = testing::golden_cases("holm.json");
  ASSERT_EQ(cases.size(), 7u);
  for (const auto& c : cases) {
    const auto adjusted = holm(testing::golden_values(c.at("p")));
    const auto expected = testing::golden_values(c.at("p_holm"));
    ASSERT_EQ(adjusted.size(), expected.size()) << c.at("name");
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(adjusted[i], expected[i], testing::scipy_tolerance) << c.at("name") << "[" << i << "]";
  }
}

TEST(Holm, ByHand) {
  // Sorted: 0.005, 0.01, 0.03, 0.04; times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> running max 0.06.
  const auto p = holm({0.01, 0.04, 0.03, 0.005});
  EXPECT_DOUBLE_EQ(p[0], 0.03);
  EXPECT_DOUBLE_EQ(p[1], 0.06);
  EXPECT_DOUBLE_EQ(p[2], 0.06);
  EXPECT_DOUBLE_EQ(p[3], 0.02);
}

TEST(Holm, IsMonotoneAndCappedAtOne) {
  // 0.012·3 = 0.036 > 0.013·2 = 0.026: the larger raw p may not get the smaller adjusted one.
  const auto p = holm({0.001, 0.013, 0.012, 0.04});
  EXPECT_DOUBLE_EQ(p[0], 0.004);
  EXPECT_DOUBLE_EQ(p[2], 0.036);
  EXPECT_DOUBLE_EQ(p[1], 0.036);
  EXPECT_DOUBLE_EQ(p[3], 0.04);
  EXPECT_EQ(holm({0.4, 0.6, 0.9}), (std::vector<double>{1.0, 1.0, 1.0}));  // 1.2, 1.2, 0.9 -> max, then cap
  EXPECT_EQ(holm({0.02, 0.02, 0.5}), (std::vector<double>{0.06, 0.06, 0.5}));  // ties get one value
  EXPECT_EQ(holm({0.03}), (std::vector<double>{0.03}));  // a family of one: unchanged
  EXPECT_TRUE(holm({}).empty());
}

TEST(Holm, RefusesWhatIsNotAPValue) {
  try {
    holm({0.01, 1.5});
    FAIL() << "p = 1.5 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "holm: p[1] = 1.5 is not in [0, 1]");
  }
  EXPECT_THROW(holm({NAN}), std::invalid_argument);
  EXPECT_THROW(holm({-0.1}), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::stats
