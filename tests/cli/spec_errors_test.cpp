// Every way a spec is refused: before any work, with the file, the JSON path
// and what would be valid, and exit code 2. Nothing reaches stdout.
#include <gtest/gtest.h>

#include "cli/run_binary.hpp"

namespace attnlab::testing {
namespace {

class SpecErrors : public ::testing::Test {
 protected:
  ScratchDir dir{"spec_errors"};
  Outcome refuse(const std::string& spec_text, const std::string& extra = "") {
    const std::string file = dir.write("spec.json", spec_text);
    Outcome o = run_attnlab("run '" + file + "' " + extra, dir);
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_EQ(o.out, "") << "a refused spec must print no table";
    EXPECT_NE(o.err.find(file), std::string::npos) << "the message must name the file: " << o.err;
    return o;
  }
};

TEST_F(SpecErrors, MalformedJsonGivesLineAndColumn) {
  const Outcome o = refuse("{\n  \"experiment\": \"sqrt_d\",\n  \"widths\": [8, 64,, 512]\n}\n");
  EXPECT_NE(o.err.find("not valid JSON (line 3, column 20)"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, NotAnObject) {
  const Outcome o = refuse("[1, 2]");
  EXPECT_NE(o.err.find("must be a JSON object"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, MissingExperimentKey) {
  const Outcome o = refuse(R"({"seed": 0})");
  EXPECT_NE(o.err.find("at /experiment: missing the key \"experiment\"; known kinds: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("sqrt_d"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, UnknownKindListsKnownOnesAndSuggests) {
  const Outcome o = refuse(R"({"experiment": "sqrtd"})");
  EXPECT_NE(o.err.find("unknown experiment \"sqrtd\" (did you mean \"sqrt_d\"?); known kinds: "), std::string::npos)
      << o.err;
}

TEST_F(SpecErrors, UnknownKeySuggestsClosest) {
  const Outcome o = refuse(R"({"experiment": "sqrt_d", "widht": [8]})");
  EXPECT_NE(o.err.find("at /widht: unknown key \"widht\" for experiment \"sqrt_d\" (did you mean \"widths\"?)"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("valid keys: experiment, "), std::string::npos) << o.err;
}

TEST_F(SpecErrors, WrongTypeNamesPathAndAllowed) {
  const Outcome o = refuse(R"({"experiment": "sqrt_d", "n_keys": "twenty"})");
  EXPECT_NE(o.err.find("at /n_keys: \"twenty\" is not allowed for \"n_keys\""), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("expected an integer in [2, 100000]"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, OutOfRangeListItemNamesItsIndex) {
  const Outcome o = refuse(R"({"experiment": "sqrt_d", "widths": [8, 0, 512]})");
  EXPECT_NE(o.err.find("at /widths/1: 0 is not allowed in \"widths\""), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("each in [1, 65536]"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, FractionalIntegerRefused) {
  const Outcome o = refuse(R"({"experiment": "sqrt_d", "seed": 1.5})");
  EXPECT_NE(o.err.find("at /seed: 1.5 is not allowed"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, OverrideIsCheckedLikeTheFileAndBlamed) {
  const Outcome o = refuse(R"({"experiment": "sqrt_d"})", "--set n_keys=1");
  EXPECT_NE(o.err.find("--set n_keys (applied to " + (dir.path / "spec.json").string() +
                       "): at /n_keys: 1 is not allowed"),
            std::string::npos)
      << o.err;
}

TEST_F(SpecErrors, ABadValueInTheFileIsStillTheFiles) {
  const Outcome o = refuse(R"({"experiment": "sqrt_d", "n_keys": 1})", "--set seed=3");
  EXPECT_EQ(o.err.find("--set"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("spec.json: at /n_keys: 1 is not allowed"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, HeadsMustDivideTheWidth) {
  const Outcome o = refuse(R"({"experiment": "positions", "d_model": 32, "n_heads": 3})");
  EXPECT_NE(o.err.find("at /n_heads: n_heads 3 does not divide d_model 32"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, UnknownVariantSuggestsTheValidOne) {
  const Outcome o = refuse(R"({"experiment": "positions", "variants": ["none", "learnt"]})");
  EXPECT_NE(o.err.find("at /variants/1: \"learnt\" is not allowed in \"variants\""), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("strings from \"none\", \"learned\""), std::string::npos) << o.err;
}

TEST_F(SpecErrors, AKeyGivenTwiceIsRefused) {
  const Outcome o = refuse(R"({"experiment": "sqrt_d", "n_keys": 5, "n_keys": 6})");
  EXPECT_NE(o.err.find("at /n_keys: the key \"n_keys\" is given twice"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, ANumberBeyondDoubleIsOutOfRangeWithItsPlace) {
  // PyTorch could not take 1e309 either (it is inf in double precision).
  const Outcome o = refuse("{\"experiment\": \"positions\",\n \"lr\": 1e309}");
  EXPECT_NE(o.err.find("1e309 is out of range"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("(line 2, column 8)"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, ANumberBeyondDoubleInSetBlamesSet) {
  const std::string file = dir.write("spec.json", R"({"experiment": "positions"})");
  const Outcome o = run_attnlab("run '" + file + "' --set lr=1e309", dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("attnlab: error: --set lr: 1e309 is out of range"), std::string::npos) << o.err;
}

// Fuzzing (tests/fuzz/regressions/set/number_out_of_range_before_a_syntax_error):
// a value that overflows double before it stops being JSON is refused with
// exit 2 like any other bad --set, never an uncaught exception.
TEST_F(SpecErrors, SetValueOutOfRangeBeforeASyntaxErrorIsRefused) {
  const std::string file = dir.write("spec.json", R"({"experiment": "positions"})");
  const Outcome o = run_attnlab("run '" + file + "' --set 'variants=[\"none\",1e400\",ariants=[\"#0pn=100'", dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err.rfind("attnlab: error: ", 0), 0u) << o.err;
  EXPECT_NE(o.err.find("variants"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, DeeplyNestedValuesAreRefusedWithTheirPlace) {
  // 100000 levels once overflowed the stack while the error printed the value.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const Outcome o = refuse(R"({"experiment": "sqrt_d", "widths": )" + deep + "}");
  EXPECT_NE(o.err.find("nested deeper than 64 levels of brackets (line 1, column 99)"), std::string::npos)
      << o.err.substr(0, 300);
  EXPECT_LT(o.err.size(), 1000u);
}

TEST_F(SpecErrors, DeeplyNestedSetIsRefusedNotACrash) {
  // 60000 levels in --set once crashed with SIGSEGV (a recursive copy).
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  for (const std::string command : {"run", "validate", "show"}) {
    const std::string file = dir.write("spec.json", R"({"experiment": "sqrt_d"})");
    const Outcome o = run_attnlab(command + " '" + file + "' --set 'n_keys=" + deep + "'", dir);
    EXPECT_EQ(o.exit_code, 2) << command << ": " << o.err.substr(0, 300);
    EXPECT_NE(o.err.find("--set n_keys: the value nests deeper than 64 levels"), std::string::npos)
        << command << ": " << o.err.substr(0, 300);
  }
}

TEST_F(SpecErrors, ANulByteInASpecIsRefused) {
  // nlohmann's parser stops at a NUL as at the end of the text, so the
  // garbage after it would otherwise pass unseen.
  const Outcome o = refuse(std::string("{\"experiment\": \"sqrt_d\"}\n\0garbage", 33));
  EXPECT_NE(o.err.find("a NUL byte at line 2, column 1"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, AnUnknownKeyInSetNamesTheOption) {
  const std::string file = dir.write("spec.json", R"({"experiment": "positions"})");
  const Outcome o = run_attnlab("run '" + file + "' --set n_head=8", dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("--set n_head (applied to " + file + "): unknown key \"n_head\" for experiment "
                       "\"positions\" (did you mean \"n_heads\"?)"),
            std::string::npos)
      << o.err;
}

TEST_F(SpecErrors, SuggestionsIgnoreCase) {
  const Outcome o = refuse(R"({"experiment": "positions", "N_HEADS": 8})");
  EXPECT_NE(o.err.find("(did you mean \"n_heads\"?)"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, AKindWithoutParametersSaysSo) {
  const Outcome o = refuse(R"({"experiment": "weighted_average", "seed": 0})");
  EXPECT_NE(o.err.find("valid keys: experiment (this kind takes no parameters)"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, ValidateReportsEveryBadFile) {
  const std::string good = dir.write("good.json", R"({"experiment": "sqrt_d"})");
  const std::string bad1 = dir.write("bad1.json", R"({"experiment": "sqrt_d", "widht": [8]})");
  const std::string bad2 = dir.write("bad2.json", R"({"experiment": "positions", "n_heads": 5})");
  const Outcome o = run_attnlab("validate '" + good + "' '" + bad1 + "' '" + bad2 + "'", dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("bad1.json: at /widht"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("bad2.json: at /n_heads"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, AFolderIsNotASpec) {
  const Outcome o = run_attnlab("validate '" + dir.path.string() + "'", dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("not a regular file"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, MissingFileIsBadUsage) {
  const Outcome o = run_attnlab("validate '" + (dir.path / "nope.json").string() + "'", dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("nope.json: cannot open the file: No such file"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, RunRefusesMissingFileBeforeWork) {
  const Outcome o = run_attnlab("run '" + (dir.path / "nope.json").string() + "'", dir);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(o.out, "");
}

TEST_F(SpecErrors, OneBadSpecAmongGoodOnesRunsNothing) {
  const std::string good = dir.write("good.json", R"({"experiment": "sqrt_d"})");
  const std::string bad = dir.write("bad.json", R"({"experiment": "sqrt_d", "n_keys": -3})");
  const Outcome o = run_attnlab("run '" + good + "' '" + bad + "'", dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.out, "") << "the good spec must not run when another is refused";
  EXPECT_NE(o.err.find("bad.json: at /n_keys"), std::string::npos) << o.err;
}

TEST_F(SpecErrors, UnknownOptionIsBadUsage) {
  const Outcome o = run_attnlab("run --frobnicate x.json", dir);
  EXPECT_EQ(o.exit_code, 2);
}

TEST_F(SpecErrors, NoSubcommandIsBadUsage) {
  const Outcome o = run_attnlab("", dir);
  EXPECT_EQ(o.exit_code, 2);
}

}  // namespace
}  // namespace attnlab::testing

namespace attnlab::testing {
namespace {

// Found by fuzzing (tests/fuzz/regressions/set/non_utf8_value): a --set value
// in another encoding than UTF-8 is refused up front with exit 2, not failed
// with nlohmann's type_error (exit 1) when the spec is shown or written.
TEST(SetValueThatIsNotUtf8, IsRefused) {
  ScratchDir dir("set_utf8");
  for (const char* set : {"seed=4294967\\204\\204", "cell=\\351t\\351", "\\204=1"}) {
    const Outcome o = run_attnlab("run " + std::string(ATTNLAB_EXPERIMENTS_DIR) + "/bottleneck.json --set \"$(printf '" +
                                      set + "')\"",
                                  dir);
    EXPECT_EQ(o.exit_code, 2) << set << ": " << o.err;
    EXPECT_NE(o.err.find("--set"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("is not UTF-8 text"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "");
  }
  const Outcome fine = run_attnlab("validate " + std::string(ATTNLAB_EXPERIMENTS_DIR) + "/bottleneck.json --set 'cell=gru'", dir);
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

}  // namespace
}  // namespace attnlab::testing
