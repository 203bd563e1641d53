#include "experiments/spec_rules.hpp"

#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace attnlab::experiments {

void require_heads_divide_width(const nlohmann::json& spec, const std::string& file, const std::string& width_key,
                                const std::string& heads_key) {
  const int width = spec.at(width_key).get<int>(), heads = spec.at(heads_key).get<int>();
  if (width % heads != 0)
    throw spec::SpecError(file, "/" + heads_key,
                          fmt::format("{} {} does not divide {} {}; {} must be a multiple of {}", heads_key, heads,
                                      width_key, width, width_key, heads_key));
}

}  // namespace attnlab::experiments
