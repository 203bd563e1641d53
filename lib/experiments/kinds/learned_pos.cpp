// Course day 5, "Learned positions" (data/course/11_learned_pos.py): a
// second embedding table indexed by position is added to the token
// embeddings, so the same token at two positions becomes two different
// vectors (mean absolute difference 0.7602 at the course's seed).
#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/python_format.hpp"
#include "kernels/embedding.hpp"
#include "random/generator.hpp"
#include "report/text.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::experiments {

namespace {

// tokens(ids) + positions(arange(T)) for one sequence of T ids: (1, T, D).
std::vector<float> embed(const std::vector<std::int32_t>& ids, const std::vector<float>& tokens, int V,
                         const std::vector<float>& positions, int P, int D) {
  const int T = static_cast<int>(ids.size());
  std::vector<float> x(static_cast<std::size_t>(T) * D);
  kernels::embedding_forward(x.data(), ids.data(), tokens.data(), T, V, D);
  kernels::position_embedding_forward(x.data(), positions.data(), 1, T, D, P);
  return x;
}

Report run(const nlohmann::json& spec, const RunContext&) {
  const int V = spec.at("vocab").get<int>(), P = spec.at("max_len").get<int>(), D = spec.at("d_model").get<int>();
  const auto ids = spec.at("tokens").get<std::vector<std::int32_t>>();
  const int T = static_cast<int>(ids.size());

  // tokens = nn.Embedding(V, D), then positions = nn.Embedding(max_len, D)
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  std::vector<float> tokens(static_cast<std::size_t>(V) * D), positions(static_cast<std::size_t>(P) * D);
  kernels::embedding_init(g, tokens.data(), V, D);
  kernels::embedding_init(g, positions.data(), P, D);

  // tokens(x) (1, T, D), positions(arange(T)) (T, D), and their sum (1, T, D)
  std::vector<float> token_emb(static_cast<std::size_t>(T) * D), pos_emb(static_cast<std::size_t>(T) * D);
  kernels::embedding_forward(token_emb.data(), ids.data(), tokens.data(), T, V, D);
  std::vector<std::int32_t> arange(T);
  std::iota(arange.begin(), arange.end(), 0);
  kernels::embedding_forward(pos_emb.data(), arange.data(), positions.data(), T, P, D);
  const std::vector<float> combined = embed(ids, tokens, V, positions, P, D);
  const std::vector<long long> token_shape = {1, T, static_cast<long long>(token_emb.size() / T)},
                               pos_shape = {T, static_cast<long long>(pos_emb.size() / T)},
                               combined_shape = {1, T, static_cast<long long>(combined.size() / T)};

  // the same token at positions 0 and 1: (out[0, 0] - out[0, 1]).abs().mean()
  const std::int32_t same = spec.at("same_token").get<std::int32_t>();
  const std::vector<float> out = embed({same, same}, tokens, V, positions, P, D);
  float sum = 0.0f;
  for (int c = 0; c < D; ++c) sum += std::abs(out[c] - out[D + c]);
  const float difference = sum / static_cast<float>(D);

  Report r;
  r.text = "token embeddings    " + py_shape(token_shape) + "\n";
  r.text += "position embeddings " + py_shape(pos_shape) + "\n";
  r.text += "added together      " + py_shape(combined_shape) + "\n";
  r.text += "\nthe same token at two positions is now two different vectors:\n";
  r.text += report::printf("  difference %.4f\n", static_cast<double>(difference));
  r.data = {{"token_embeddings_shape", token_shape},
            {"position_embeddings_shape", pos_shape},
            {"combined_shape", combined_shape},
            {"difference", difference}};
  return r;
}

// Token ids must index the token table, and the sequence (and the pair of
// positions 0, 1) must fit the position table.
void check(const nlohmann::json& spec, const std::string& file) {
  const int V = spec.at("vocab").get<int>(), P = spec.at("max_len").get<int>();
  const auto ids = spec.at("tokens").get<std::vector<int>>();
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= V)
      throw spec::SpecError(file, fmt::format("/tokens/{}", i),
                            fmt::format("token {} is outside the vocabulary of {} (ids 0..{})", ids[i], V, V - 1));
  if (spec.at("same_token").get<int>() >= V)
    throw spec::SpecError(file, "/same_token",
                          fmt::format("token {} is outside the vocabulary of {} (ids 0..{})",
                                      spec.at("same_token").get<int>(), V, V - 1));
  if (static_cast<int>(ids.size()) > P)
    throw spec::SpecError(file, "/tokens",
                          fmt::format("{} tokens do not fit max_len {} positions", ids.size(), P));
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const double V = spec.at("vocab").get<int>(), P = spec.at("max_len").get<int>(), D = spec.at("d_model").get<int>();
  const double T = spec.at("tokens").size();
  // the two tables (V, D) and (P, D); token, position and combined embeddings (T, D); the pair (2, D)
  return {(V * D + P * D + 3 * T * D + 2 * D) * sizeof(float) + 2 * T * sizeof(std::int32_t), 1,
          V >= P ? "/vocab" : "/max_len", "vocab, max_len or d_model"};
}

}  // namespace

Experiment learned_pos_experiment() {
  using spec::Type;
  return {.name = "learned_pos",
          .summary = "learned position embeddings added to token embeddings: the same token differs by position",
          .course_order = 11,
          .params = {{.name = "vocab", .type = Type::Integer, .default_value = 10,
                      .doc = "rows of the token embedding table", .min = 1, .max = 100000},
                     {.name = "max_len", .type = Type::Integer, .default_value = 8,
                      .doc = "rows of the position embedding table (at least 2: positions 0 and 1 are compared)",
                      .min = 2, .max = 4096},
                     d_model_param(16, "embedding width", 1, 4096),
                     {.name = "tokens", .type = Type::IntegerList, .default_value = {3, 7, 2, 5},
                      .doc = "the token ids of the example sequence", .min = 0, .max = 99999,
                      .min_items = 1, .max_items = 4096},
                     {.name = "same_token", .type = Type::Integer, .default_value = 5,
                      .doc = "the token placed at positions 0 and 1 for the difference", .min = 0, .max = 99999},
                     seed_param()},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
