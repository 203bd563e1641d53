// Mann–Whitney U and P(A > B) against SciPy 1.10's mannwhitneyu
// (data/stats/mann_whitney.json, and the U of every case of welch_t.json).
#include "stats/mann_whitney.hpp"

#include <stdexcept>

#include "stats/probability_of_improvement.hpp"
#include "stats_golden.hpp"

namespace attnlab::stats {
namespace {

using testing::golden_values;

TEST(MannWhitney, EqualsScipy) {
  int compared = 0;
  for (const char* file : {"mann_whitney.json", "welch_t.json"})
    for (const auto& c : testing::golden_cases(file)) {
      const auto a = golden_values(c.at("a")), b = golden_values(c.at("b"));
      const std::string name = std::string(file) + ": " + c.at("name").get<std::string>();
      // U counts in halves: exact in double, so exactly SciPy's.
      EXPECT_EQ(mann_whitney_u(a, b), c.at("u").get<double>()) << name;
      EXPECT_NEAR(p_a_gt_b_unpaired(a, b), c.at("p_a_gt_b").get<double>(), testing::scipy_tolerance) << name;
      ++compared;
    }
  EXPECT_EQ(compared, 7 + 11);
}

TEST(MannWhitney, TiesCountOneHalf) {
  // (0.8, 0.8) and (0.8, 0.8) tie, 0.9 beats both 0.8: U = 2·2·½ + 2 = 4 of 6 pairs.
  EXPECT_EQ(mann_whitney_u({0.8, 0.9, 0.8}, {0.8, 0.8}), 4.0);
  EXPECT_EQ(mann_whitney_u({0.8, 0.8}, {0.8, 0.9, 0.8}), 2.0);  // U_A + U_B = n_a·n_b
  EXPECT_EQ(p_a_gt_b_unpaired({1, 1, 1}, {1, 1, 1, 1}), 0.5);    // all equal
  EXPECT_EQ(p_a_gt_b_unpaired({0.9, 0.95}, {0.1, 0.2, 0.3}), 1.0);
  EXPECT_EQ(p_a_gt_b_unpaired({0.1, 0.2, 0.3}, {0.9, 0.95}), 0.0);
  EXPECT_EQ(p_a_gt_b_unpaired({0.3}, {0.3}), 0.5);  // n = 1 each: defined
}

TEST(ProbabilityOfImprovement, PairedIsTheShareOfSeedsWon) {
  // Seeds: win, tie, loss, win, win: (1 + ½ + 0 + 1 + 1) / 5 = 0.7.
  EXPECT_EQ(p_a_gt_b_paired({0.9, 0.8, 0.7, 0.95, 0.6}, {0.8, 0.8, 0.75, 0.9, 0.5}), 0.7);
  // Unpaired the same values give U/(n·n), which also pits one seed of A against another seed of B:
  // 0.9 wins 4 and ties 1 (4.5), 0.8 wins 2 and ties 2 (3), 0.7 wins 1, 0.95 wins 5, 0.6 wins 1: 14.5/25.
  EXPECT_EQ(p_a_gt_b_unpaired({0.9, 0.8, 0.7, 0.95, 0.6}, {0.8, 0.8, 0.75, 0.9, 0.5}), 14.5 / 25.0);
  EXPECT_EQ(p_a_gt_b_paired({1, 1}, {1, 1}), 0.5);
  EXPECT_EQ(p_a_gt_b_paired({0.9}, {0.8}), 1.0);
}

TEST(ProbabilityOfImprovement, PairedEqualsTheGoldens) {
  for (const auto& c : testing::golden_cases("paired_t.json"))
    EXPECT_EQ(p_a_gt_b_paired(golden_values(c.at("a")), golden_values(c.at("b"))), c.at("p_a_gt_b").get<double>())
        << c.at("name");
}

TEST(MannWhitney, RefusesWhatIsMissing) {
  EXPECT_THROW(mann_whitney_u({}, {0.5}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u({0.5}, {}), std::invalid_argument);
  EXPECT_THROW(p_a_gt_b_unpaired({NAN}, {0.5}), std::invalid_argument);
  try {
    p_a_gt_b_paired({0.5, 0.6, 0.7}, {0.5});
    FAIL() << "unequal lengths accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "p_a_gt_b_paired: one B value per A value (the same seeds) is needed: A has 3, B has 1");
  }
}

}  // namespace
}  // namespace attnlab::stats
