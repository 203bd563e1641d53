// Course day 2, "Attention has no idea of order" (data/course/
// 05_permutation.py): shuffling the input positions only shuffles the output
// rows the same way (attention is permutation-equivariant), so attention
// alone cannot tell 12345 from 54321; day 5 adds positions back.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "experiments/common_params.hpp"
#include "experiments/kinds/kinds.hpp"
#include "experiments/plain_attention.hpp"
#include "random/generator.hpp"
#include "spec/spec_error.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::experiments {

namespace {

// attention(x · Wq, x · Wk, x · Wv) for x (T, C), W = [Wq | Wk | Wv] three (C, C).
std::vector<float> self_attention(const std::vector<float>& x, const std::vector<float>& w, int T, int C) {
  const std::size_t tc = static_cast<std::size_t>(T) * C, cc = static_cast<std::size_t>(C) * C;
  std::vector<float> qkv(3 * tc), out(tc);
  for (int m = 0; m < 3; ++m)
    tensor::gemm<float>(false, false, T, C, C, 1.0f, x.data(), C, w.data() + m * cc, C, 0.0f, qkv.data() + m * tc, C);
  plain_attention(out.data(), nullptr, qkv.data(), qkv.data() + tc, qkv.data() + 2 * tc, T, T, C, C);
  return out;
}

// rows of m (T, C) taken in `order`: m[order]
std::vector<float> take_rows(const std::vector<float>& m, const std::vector<int>& order, int C) {
  std::vector<float> out;
  out.reserve(m.size());
  for (int i : order) out.insert(out.end(), m.begin() + std::size_t(i) * C, m.begin() + std::size_t(i + 1) * C);
  return out;
}

Report run(const nlohmann::json& spec, const RunContext&) {
  const auto order = spec.at("order").get<std::vector<int>>();
  const int T = static_cast<int>(order.size()), C = spec.at("d_model").get<int>();
  random::Generator g(spec.at("seed").get<std::uint64_t>());
  const std::size_t cc = static_cast<std::size_t>(C) * C;

  // x (T, C), then Wq, Wk, Wv (C, C) each = randn(C, C) * 0.4
  std::vector<float> x(static_cast<std::size_t>(T) * C), w(3 * cc);
  g.normal(x.data(), x.size());
  for (int m = 0; m < 3; ++m) {
    g.normal(w.data() + m * cc, cc);
    for (std::size_t n = m * cc; n < (m + 1) * cc; ++n) w[n] *= 0.4f;
  }
  const std::vector<float> a = self_attention(x, w, T, C);
  const std::vector<float> b = self_attention(take_rows(x, order, C), w, T, C);
  const std::vector<float> a_shuffled = take_rows(a, order, C);

  // The course checks torch.allclose(a[order], b, atol=1e-6): |a - b| <= 1e-6
  // + 1e-5 |b|. The two runs sum the same terms in another order (the
  // softmax's denominator and the mix of values run over the T keys in
  // shuffled order, and on OpenBLAS a product's rows may take other kernel
  // paths), so they differ by float32 rounding, which grows with the length
  // and width: 2e-5 at 16 positions of width 60 (OpenBLAS's products), 1.4e-6
  // at width 64 (attnlab's own tiles, tensor/sgemm_tiles.hpp). The bound below is 4 ulp-sized errors
  // per term of those sums, 4 · 2^-23 · (T + C) · max|output|; a difference
  // within it is the same rows, beyond it is not.
  double max_diff = 0.0, max_out = 0.0;
  bool close_as_course = true;
  for (std::size_t n = 0; n < b.size(); ++n) {
    const double diff = std::abs(static_cast<double>(a_shuffled[n]) - b[n]);
    max_diff = std::max(max_diff, diff);
    max_out = std::max(max_out, std::abs(static_cast<double>(b[n])));
    close_as_course = close_as_course && diff <= 1e-6 + 1e-5 * std::abs(static_cast<double>(b[n]));
  }
  const double rounding = 4.0 * std::ldexp(1.0, -23) * (T + C) * max_out;
  const bool same = close_as_course || max_diff <= rounding;

  Report r;
  r.text = "shuffle the positions and the outputs are the same rows,\n";
  if (close_as_course)  // the course's words
    r.text += "in the shuffled order: True\n";
  else if (same)
    r.text += fmt::format("in the shuffled order: True (largest difference {:.1e}, float32 rounding over {} "
                          "positions of width {}; bound {:.1e})\n",
                          max_diff, T, C, rounding);
  else
    r.text += fmt::format("in the shuffled order: False (largest difference {:.1e}, beyond float32 rounding "
                          "{:.1e})\n",
                          max_diff, rounding);
  if (same) {
    r.text += "\nso attention alone cannot tell 12345 from 54321.\n";
    r.text += "day 5 puts the position back.\n";
  } else {
    r.text += "\nthe rows differ by more than rounding, so this run does not show\n";
    r.text += "attention ignoring order; something else depends on the positions.\n";
  }
  r.data = {{"order", order},
            {"same_rows", same},
            {"max_abs_difference", max_diff},
            {"rounding_bound", rounding},
            {"within_course_tolerance", close_as_course}};
  return r;
}

// order must be a permutation of 0 .. len(order) - 1, as x[order] shuffles
// every row exactly once.
void check(const nlohmann::json& spec, const std::string& file) {
  const auto order = spec.at("order").get<std::vector<int>>();
  std::vector<bool> seen(order.size(), false);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int p = order[i];
    if (p < 0 || p >= static_cast<int>(order.size()) || seen[p])
      throw spec::SpecError(file, fmt::format("/order/{}", i),
                            fmt::format("order must be a permutation of 0..{}: {} is {}", order.size() - 1, p,
                                        p < 0 || p >= static_cast<int>(order.size()) ? "out of range" : "repeated"));
    seen[p] = true;
  }
}

MemoryEstimate memory(const nlohmann::json& spec, int) {
  const double T = spec.at("order").size(), C = spec.at("d_model").get<int>();
  // x, a, b, a[order], x[order], out (T, C) each, qkv (T, 3C), Wq, Wk, Wv (C, C), weights (T, T)
  return {(9 * T * C + 3 * C * C + T * T) * sizeof(float), 1, "/d_model", "d_model or order"};
}

}  // namespace

Experiment permutation_experiment() {
  using spec::Type;
  return {.name = "permutation",
          .summary = "attention is permutation-equivariant: shuffled inputs give the same rows shuffled",
          .course_order = 5,
          .params = {{.name = "order", .type = Type::IntegerList, .default_value = {2, 0, 3, 1},
                      .doc = "the shuffle x[order]; its length is the number of positions",
                      .min = 0, .max = 255, .min_items = 1, .max_items = 256},
                     d_model_param(6, "width of each position and of Q, K, V"),
                     seed_param()},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
