#include "experiments/common_params.hpp"

#include <utility>

namespace attnlab::experiments {

spec::Param seed_param(long long default_seed) {
  return {.name = "seed",
          .type = spec::Type::Integer,
          .default_value = default_seed,
          .doc = "torch.manual_seed value the course's draws start from",
          .min = 0,
          .max = 4294967295.0};
}

spec::Param d_model_param(int default_value, std::string doc, int min, int max) {
  return {.name = "d_model",
          .type = spec::Type::Integer,
          .default_value = default_value,
          .doc = std::move(doc),
          .min = min,
          .max = max};
}

spec::Param n_heads_param(int default_value, std::string doc, int max) {
  return {.name = "n_heads", .type = spec::Type::Integer, .default_value = default_value, .doc = std::move(doc), .min = 1, .max = max};
}

}  // namespace attnlab::experiments
