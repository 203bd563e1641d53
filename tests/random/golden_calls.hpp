// Replays the cases that scripts/make_rng_goldens.py recorded from real
// PyTorch 1.13 (data/random/*.json, data/data/loader_order.json) on our
// Generator and compares bit for bit.
//
// A case is {name, seed_u64, calls: [...], after: {normal, words}}: the calls
// run one after another on one generator; "after" is what PyTorch's generator
// gave next (randn(1), which uses a cached Box-Muller value if one is held,
// then 8 words), so matching it means the engine state and the normal cache
// match too.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <string>
#include <type_traits>
#include <vector>

#include "random/generator.hpp"
#include "support/golden.hpp"

namespace attnlab::testing {

using nlohmann::json;

/// 64-bit FNV-1a over 32-bit words, as the script's fnv1a_bits / fnv1a_ints.
inline std::uint64_t fnv1a_words(const std::vector<std::uint32_t>& words) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (std::uint32_t w : words) {
    h ^= w;
    h *= 0x100000001B3ULL;
  }
  return h;
}

inline std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

/// Counts positions where `got` and `want` differ, reporting the first few
/// with both values, so a wrong kernel prints a handful of lines, not 10 000.
template <typename T, typename Want>
void expect_equal_lists(const std::vector<T>& got, const Want& want, const std::string& what,
                        std::size_t offset = 0) {
  ASSERT_LE(offset + want.size(), got.size()) << what;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const T g = got[offset + i];
    const T w = want[i];
    bool same;
    if constexpr (std::is_same_v<T, float>) {
      same = bits(g) == bits(w);  // bit patterns: -0 != +0, exactly as torch wrote them
    } else {
      same = g == w;
    }
    if (!same && ++wrong <= 5)
      ADD_FAILURE() << std::setprecision(9) << what << "[" << offset + i << "]: got " << +g
                    << " want " << +w;
  }
  EXPECT_EQ(wrong, 0u) << what << ": values differing from PyTorch";
}

inline std::vector<float> floats_of(const json& j) { return as_floats(j); }

template <typename T>
std::vector<T> list_of(const json& j) {
  return j.get<std::vector<T>>();
}

/// Checks a float result stored in full ("values") or, when long, as
/// head, tail and an FNV-1a over all bit patterns.
inline void expect_floats(const std::vector<float>& got, const json& call, const std::string& what) {
  if (call.contains("values")) {
    expect_equal_lists(got, floats_of(call.at("values")), what);
    return;
  }
  const auto head = floats_of(call.at("head"));
  const auto tail = floats_of(call.at("tail"));
  expect_equal_lists(got, head, what + " head");
  expect_equal_lists(got, tail, what + " tail", got.size() - tail.size());
  std::vector<std::uint32_t> words(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) words[i] = bits(got[i]);
  EXPECT_EQ(fnv1a_words(words), call.at("fnv1a_bits").get<std::uint64_t>()) << what << " checksum";
}

/// An op the shared runner does not know (e.g. the data loader's); returns
/// false when it does not know it either.
using ExtraOp = std::function<bool(random::Generator&, const json& call, const std::string& what)>;

/// Runs one recorded call on g and compares its result with PyTorch's.
inline void replay_call(random::Generator& g, const json& call, const std::string& what,
                        const ExtraOp& extra = {}) {
  const std::string op = call.at("op");
  const auto n = call.contains("n") ? call.at("n").get<std::size_t>() : std::size_t{0};
  if (op == "words") {
    std::vector<std::uint32_t> got(n);
    for (auto& w : got) w = g.random();
    expect_equal_lists(got, list_of<std::uint32_t>(call.at("values")), what);
  } else if (op == "uniform") {
    std::vector<float> got(n);
    g.uniform(got.data(), n, call.at("from").get<double>(), call.at("to").get<double>());
    expect_floats(got, call, what);
  } else if (op == "normal") {
    std::vector<float> got(n);
    g.normal(got.data(), n, call.at("mean").get<double>(), call.at("std").get<double>());
    expect_floats(got, call, what);
  } else if (op == "randint") {
    std::vector<std::int64_t> got(n);
    g.randint(got.data(), n, call.at("low").get<std::int64_t>(), call.at("high").get<std::int64_t>());
    if (call.contains("values")) {
      expect_equal_lists(got, list_of<std::int64_t>(call.at("values")), what);
    } else {
      expect_equal_lists(got, list_of<std::int64_t>(call.at("head")), what + " head");
      std::vector<std::uint32_t> low_words(n);
      for (std::size_t i = 0; i < n; ++i) low_words[i] = static_cast<std::uint32_t>(got[i]);
      EXPECT_EQ(fnv1a_words(low_words), call.at("fnv1a_values").get<std::uint64_t>()) << what << " checksum";
    }
  } else if (op == "random_int64") {
    std::vector<std::int64_t> got(n);
    for (auto& v : got) v = static_cast<std::int64_t>(g.random64() % (std::uint64_t{1} << 63));
    expect_equal_lists(got, list_of<std::int64_t>(call.at("values")), what);
  } else if (op == "randperm") {
    expect_equal_lists(g.randperm(static_cast<std::int64_t>(n)), list_of<std::int64_t>(call.at("values")), what);
  } else if (op == "manual_seed") {
    g.manual_seed(call.at("seed_u64").get<std::uint64_t>());
  } else if (op == "dropout") {
    const double p = call.at("p").get<double>();
    std::vector<std::uint8_t> keep(n);
    g.dropout_mask(keep.data(), n, p);
    expect_equal_lists(keep, list_of<std::uint8_t>(call.at("keep")), what + " keep");
    if (!call.at("scale").is_null()) {  // null when nothing was kept
      EXPECT_EQ(bits(random::dropout_scale(p)), bits(call.at("scale").get<float>())) << what << " scale";
    }
  } else if (!(extra && extra(g, call, what))) {
    ADD_FAILURE() << what << ": unknown op " << op;
  }
}

/// Runs a whole case on a generator seeded as PyTorch's was, then checks
/// the state through "after". Returns the generator for further checks.
inline random::Generator replay_case(const json& c, const ExtraOp& extra = {}) {
  const std::string name = c.at("name");
  random::Generator g(c.at("seed_u64").get<std::uint64_t>());
  const auto& calls = c.at("calls");
  for (std::size_t i = 0; i < calls.size(); ++i)
    replay_call(g, calls[i], name + " call " + std::to_string(i) + " (" +
                                 calls[i].at("op").get<std::string>() + ")", extra);
  const auto& after = c.at("after");
  float next_normal = 0.0f;
  g.normal(&next_normal, 1);
  EXPECT_EQ(bits(next_normal), bits(after.at("normal").get<float>()))
      << name << ": randn(1) after the calls (normal cache or engine state differ)";
  std::vector<std::uint32_t> next_words(8);
  for (auto& w : next_words) w = g.random();
  expect_equal_lists(next_words, list_of<std::uint32_t>(after.at("words")), name + " words after");
  return g;
}

/// Loads a golden file and replays every case; `expected_cases` guards
/// against a truncated or regenerated-smaller file.
inline void replay_file(const std::string& relative_path, std::size_t expected_cases,
                        const ExtraOp& extra = {}) {
  const json golden = load_golden(relative_path);
  ASSERT_TRUE(golden.contains("_generated_by")) << relative_path;
  const auto& cases = golden.at("cases");
  EXPECT_EQ(cases.size(), expected_cases) << relative_path;
  for (const auto& c : cases) {
    SCOPED_TRACE(relative_path + ": " + c.at("name").get<std::string>());
    replay_case(c, extra);
  }
}

}  // namespace attnlab::testing
