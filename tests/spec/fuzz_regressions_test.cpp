// What fuzzing found in the spec checks (tests/fuzz/regressions/README.md):
// every refusal is a spec::SpecError with a message, whatever bytes it is about.
#include <gtest/gtest.h>

#include "spec/param.hpp"
#include "spec/validate.hpp"

namespace attnlab::testing {
namespace {

using nlohmann::json;

// fuzz_spec_set: "lr=0.0\"'xp\xd4\xd4..." as --set gives lr a string that is
// not UTF-8; refusing it used to throw nlohmann's type_error while writing the message.
TEST(FuzzRegressions, ARefusedValueThatIsNotUtf8IsShownNotThrown) {
  const std::string bytes = "0.0\"'xp\xd4\xd4\xd4";
  EXPECT_EQ(spec::show_value(json(bytes)), "\"0.0\\\"'xp\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // U+FFFD each
  EXPECT_NO_THROW(spec::show_value(json::array({bytes, 1})));
  const std::vector<spec::Param> params = {
      {.name = "lr", .type = spec::Type::Number, .default_value = 3e-3, .doc = "rate", .min = 0, .min_exclusive = true}};
  try {
    spec::fill_and_check({{"lr", bytes}}, "positions", params, "fuzz.json");
    FAIL() << "not refused";
  } catch (const spec::SpecError& e) {
    EXPECT_EQ(e.path(), "/lr");
    EXPECT_NE(e.problem().find("expected a number > 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attnlab::testing
