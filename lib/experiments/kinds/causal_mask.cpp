// Course day 4, "The causal mask" (data/course/09_causal_mask.py): a
// lower-triangular mask sets the scores of future positions to -inf before
// the softmax, so position i spreads its weight over positions 0..i only;
// that is what lets next-token training run in one parallel pass.
#include <limits>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/python_format.hpp"
#include "random/generator.hpp"
#include "report/text.hpp"
#include "tensor/row_ops.hpp"

namespace attnlab::experiments {

namespace {

Report run(const nlohmann::json& spec, const RunContext&) {
  const int T = spec.at("length").get<int>();
  const std::size_t tt = static_cast<std::size_t>(T) * T;

  // mask (T, T) = torch.tril(torch.ones(T, T)): 1 where key j <= query i
  std::vector<std::int64_t> mask(tt);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) mask[static_cast<std::size_t>(i) * T + j] = j <= i ? 1 : 0;

  Report r;
  r.text = "lower triangular mask:\n";
  r.text += torch_int_matrix_str(mask, T, T, "torch.int32") + "\n";

  // scores (T, T) = randn after seeding; masked_fill(mask == 0, -inf), softmax(-1)
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  std::vector<float> weights(tt);
  g.normal(weights.data(), weights.size());
  for (std::size_t n = 0; n < tt; ++n)
    if (mask[n] == 0) weights[n] = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < T; ++i) tensor::softmax_inplace(weights.data() + static_cast<std::size_t>(i) * T, T);

  r.text += "\nattention weights after masking:\n";
  r.data["weights"] = nlohmann::json::array();
  for (int i = 0; i < T; ++i) {
    const float* row = weights.data() + static_cast<std::size_t>(i) * T;
    r.text += report::printf("  pos %d  %s\n", i, join_formatted("%.2f", row, T));
    r.data["weights"].push_back(std::vector<double>(row, row + T));
  }
  // the script says "position 5": the last position, whatever T is
  if (T > 1)
    r.text += report::printf("\nposition 0 sees only itself; position %d sees everything.\n", T - 1);
  else
    r.text += "\nposition 0 sees only itself, which is everything there is.\n";
  r.text += "no position can see its own future, which is what makes\n";
  r.text += "next-token training possible in one parallel pass.\n";
  r.data["mask"] = nlohmann::json::array();
  for (int i = 0; i < T; ++i) r.data["mask"].push_back(std::vector<int>(mask.begin() + i * T, mask.begin() + (i + 1) * T));
  return r;
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const double T = spec.at("length").get<int>();
  // mask (T, T) int64, weights (T, T) float, both again as JSON rows (held
  // and printed), and as text ("1, " and "0.00 " per entry, copied into the JSON)
  return {T * T * (8 + 4 + 2 * (kJsonNumberBytes + kJsonPrintedNumberBytes) + 4 * 8), 1, "/length", "length"};
}

}  // namespace

Experiment causal_mask_experiment() {
  using spec::Type;
  return {.name = "causal_mask",
          .summary = "the lower-triangular mask and the attention weights it leaves",
          .course_order = 9,
          .params = {{.name = "length", .type = Type::Integer, .default_value = 6,
                      .doc = "positions T (the mask and weights are T by T)", .min = 1, .max = 256},
                     seed_param()},
          .check = nullptr,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
