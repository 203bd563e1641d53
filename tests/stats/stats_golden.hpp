// Reading data/stats/*.json (scripts/make_stats_goldens.py, SciPy 1.10) and
// holding attnlab's figures to SciPy's.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "stats/interval.hpp"
#include "support/golden.hpp"

namespace attnlab::stats::testing {

using nlohmann::json;
using attnlab::testing::load_golden;

/// How far attnlab may be from SciPy: 1e-9, relative above 1 in magnitude
/// (a t statistic of 136 or a df of 7.9), absolute below (p-values,
/// accuracies, intervals of accuracies).
inline constexpr double scipy_tolerance = 1e-9;

/// The cases of data/stats/<file>, after checking the golden says how it was made.
inline json golden_cases(const std::string& file, const char* key = "cases") {
  const json g = load_golden("stats/" + file);
  EXPECT_TRUE(g.contains("_generated_by")) << file;
  EXPECT_EQ(g.at("_generated_by").at("script"), "scripts/make_stats_goldens.py") << file;
  return g.at(key);
}

/// A golden number: "inf" and "-inf" as written, null as NaN (SciPy's 0/0).
inline double golden_number(const json& j) {
  if (j.is_null()) return std::nan("");
  if (j.is_string()) return j.get<std::string>() == "inf" ? INFINITY : -INFINITY;
  return j.get<double>();
}

inline std::vector<double> golden_values(const json& j) { return j.get<std::vector<double>>(); }

/// ours ≈ SciPy's: equal when either is infinite, within scipy_tolerance
/// otherwise; a NaN golden must not be met with a number.
inline void expect_scipy(double ours, const json& golden, const std::string& what) {
  const double g = golden_number(golden);
  if (std::isnan(g)) {
    ADD_FAILURE() << what << ": SciPy gives NaN here; the test must check attnlab's own definition";
    return;
  }
  if (std::isinf(g)) {
    EXPECT_EQ(ours, g) << what;
    return;
  }
  EXPECT_NEAR(ours, g, scipy_tolerance * std::max(1.0, std::fabs(g))) << what;
}

inline void expect_scipy(const std::optional<Interval>& ours, const json& golden, const std::string& what) {
  if (golden.is_null()) {
    EXPECT_FALSE(ours.has_value()) << what << ": SciPy gives no interval";
    return;
  }
  ASSERT_TRUE(ours.has_value()) << what << ": SciPy gives [" << golden[0] << ", " << golden[1] << "]";
  expect_scipy(ours->low, golden[0], what + " low");
  expect_scipy(ours->high, golden[1], what + " high");
}

}  // namespace attnlab::stats::testing
