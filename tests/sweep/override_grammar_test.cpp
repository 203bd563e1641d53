// The override grammar, case by case (Hydra's basic sweeper is the model:
// https://hydra.cc/docs/advanced/override_grammar/extended).
#include <gtest/gtest.h>

#include "spec/spec_error.hpp"
#include "sweep/override_grammar.hpp"

namespace attnlab::sweep {
namespace {

using nlohmann::json;

struct Case {
  const char* argument;
  const char* key;
  json values;
};

class Parses : public ::testing::TestWithParam<Case> {};

TEST_P(Parses, IntoTheseValues) {
  const Case& c = GetParam();
  const Override o = parse_override(c.argument);
  EXPECT_EQ(o.key, c.key) << c.argument;
  EXPECT_EQ(json(o.values), c.values) << c.argument;
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, Parses,
    ::testing::Values(
        Case{"seed=3", "seed", json::array({3})},                              // one value: a fixed override
        Case{"seed=0,1,2,3,4", "seed", {0, 1, 2, 3, 4}},
        Case{"seed=range(0,5)", "seed", {0, 1, 2, 3, 4}},                      // end excluded
        Case{"seed=range(3)", "seed", {0, 1, 2}},
        Case{"seed=range(0, 10, 3)", "seed", {0, 3, 6, 9}},
        Case{"seed=range(5,0,-2)", "seed", {5, 3, 1}},
        Case{"lr=range(0.1,0.5,0.1)", "lr", {0.1, 0.2, 0.3, 0.4}},            // 0.3, not 0.30000000000000004
        Case{"lr=range(0,1,0.25)", "lr", {0.0, 0.25, 0.5, 0.75}},
        Case{"lr=1e-3,3e-3", "lr", {0.001, 0.003}},
        Case{"cell=lstm,gru", "cell", {"lstm", "gru"}},                        // unquoted strings
        Case{"cell=\"lstm\"", "cell", json::array({"lstm"})},
        Case{"name='a,b'", "name", json::array({"a,b"})},                      // quoted: the comma stays
        Case{"hidden_sizes=[2,4]", "hidden_sizes", json::array({{2, 4}})},     // a list is one value
        Case{"variants=[\"none\"],[\"learned\"]", "variants", {{"none"}, {"learned"}}},
        Case{"seed=choice(7, 8)", "seed", {7, 8}},
        Case{"seed=range(0,2),7", "seed", {0, 1, 7}},
        Case{"flag=true,false", "flag", {true, false}},
        Case{" seed = 1 , 2 ", "seed", {1, 2}}));

class Refuses : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(Refuses, NamingTheProblem) {
  const auto& [argument, words] = GetParam();
  try {
    parse_override(argument);
    FAIL() << argument << " was accepted";
  } catch (const spec::SpecError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::string("sweep override '") + argument + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, Refuses,
    ::testing::Values(std::pair{"seed", "expected KEY=VALUES"},
                      std::pair{"=1", "is not a spec key"},
                      std::pair{"+seed=1", "an attnlab spec declares its keys"},
                      std::pair{"~seed", "an attnlab spec declares its keys"},
                      std::pair{"seed=", "no value after '='"},
                      std::pair{"seed=0,,1", "an empty value"},
                      std::pair{"seed=0,1,", "an empty value"},
                      std::pair{"seed=range(0,a)", "\"a\" is not a number"},
                      std::pair{"seed=range(5,0)", "is empty"},
                      std::pair{"seed=range(0,5,0)", "the step is 0"},
                      std::pair{"seed=range(1,2,3,4)", "range takes 1 to 3 numbers"},
                      std::pair{"seed=range(0,1000000000)", "at most 100000"},
                      std::pair{"variants=[none]", "is not valid JSON"},
                      std::pair{"seed=[1,2", "']' missing"},
                      std::pair{"seed=1]", "unbalanced ']'"},
                      std::pair{"name='abc", "never closed"},
                      std::pair{"lr=1e999", "beyond the range of a double"}));

TEST(SpecSweepBlock, TakesListsAndGrammarStrings) {
  EXPECT_EQ(json(values_from_spec(json{0, 1}, "s.json", "seed")), json({0, 1}));
  EXPECT_EQ(json(values_from_spec(json("range(0,3)"), "s.json", "seed")), json({0, 1, 2}));
  try {
    values_from_spec(json::array(), "s.json", "seed");
    FAIL();
  } catch (const spec::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("s.json: at /sweep/seed: expected a non-empty list"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(values_from_spec(json(3), "s.json", "seed"), spec::SpecError);
}

TEST(Show, WritesValuesAsOverridesDo) {
  EXPECT_EQ(show(json(3)), "3");
  EXPECT_EQ(show(json("lstm")), "lstm");
  EXPECT_EQ(show(json({2, 4})), "[2,4]");
  EXPECT_EQ(show(json(0.001)), "0.001");
}

}  // namespace
}  // namespace attnlab::sweep
