// Seed page 000, "Attention: how does a network look at the other steps of a
// sequence, and where is each piece in the library?", run through attnlab's
// public door: its six examples print what the page prints, one output per
// line, then the same step-equals-forward check for a causal block and a
// causal encoder stack, under "beyond the page".
//
//   1  scaled_dot_product_attention by hand                 13.3024
//   2  MultiheadSelfAttention(d_model, n_heads), no biases   (4, 8) / 4 projection matrices
//   3  the causal cache: step T times == forward             True
//   4  the post-norm TransformerBlock                        (4, 8) 12 / 0.0 1.0
//   5  sinusoidal_positions(4, 4)[1], LearnedPositions(4, 3) [0.8415, 0.5403, 0.01, 0.9999] / (2, 3) 1 True
//   6  transformer_encoder(4, d_model, n_heads, d_ff, depth, 3, ., 16) on ones(5, 4)   (3,)
//
// The page draws with JAX keys PRNGKey(0) (modules) and PRNGKey(1) (inputs);
// attnlab's generator stands in: Generator(seed) and Generator(seed + 1),
// fresh for every example as each snippet makes its keys. Only outputs that
// do not depend on the draws are compared with the page; every one of them is
// computed, none is printed from a constant.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <xtensor/xview.hpp>

#include "attnlab/attnlab.hpp"
#include "experiments/common_params.hpp"
#include "experiments/experiment.hpp"
#include "experiments/python_format.hpp"
#include "experiments/spec_rules.hpp"
#include "spec/spec_error.hpp"

namespace attnlab::experiments {

namespace {

namespace F = nn::functional;

struct Sizes {
  int d_model, n_heads, d_ff, steps, depth;
  std::uint64_t seed;
};

std::string py_bool(bool b) { return b ? "True" : "False"; }

std::string shape_text(const std::vector<std::size_t>& s) { return py_shape(std::vector<long long>(s.begin(), s.end())); }

Tensor<2> randn2(Generator& g, std::size_t a, std::size_t b) {
  Tensor<2> t = Tensor<2>::from_shape({a, b});
  g.normal(t.data(), t.size());
  return t;
}

Tensor<3> randn3(Generator& g, std::size_t a, std::size_t b, std::size_t c) {
  Tensor<3> t = Tensor<3>::from_shape({a, b, c});
  g.normal(t.data(), t.size());
  return t;
}

// np.allclose(a, b, atol=1e-5): |a - b| <= atol + rtol·|b| with rtol = 1e-5
bool allclose(const float* a, const float* b, std::size_t n, double atol = 1e-5) {
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::abs(double(a[i]) - double(b[i])) <= atol + 1e-5 * std::abs(double(b[i])))) return false;
  return true;
}

// The layer's T steps against its forward on the whole sequence (example 3).
bool layer_steps_equal_forward(nn::MultiheadSelfAttention& m, const Tensor<2>& seq) {
  const Tensor<2> yf = m.forward(seq);
  nn::Cache cache = m.init_cache({.max_len = int(seq.shape()[0])});
  const std::size_t C = seq.shape()[1];
  for (std::size_t t = 0; t < seq.shape()[0]; ++t) {
    const Tensor<1> x_t = xt::view(seq, t, xt::all());
    const Tensor<1> y_t = m.step(x_t, cache);
    if (!allclose(y_t.data(), yf.data() + t * C, C)) return false;
  }
  return cache.keys().shape()[0] == seq.shape()[0];
}

// A causal block, both norm_first values, batched (B = 2) and unbatched.
bool block_steps_equal_forward(const Sizes& s) {
  for (bool norm_first : {false, true}) {
    Generator gen(s.seed);
    nn::TransformerBlock b(
        nn::TransformerBlockOptions(s.d_model, s.n_heads, s.d_ff).norm_first(norm_first).causal(true), gen);
    b.eval();
    Generator data(s.seed + 1);
    const Tensor<3> x = randn3(data, 2, std::size_t(s.steps), std::size_t(s.d_model));
    const Tensor<3> yf = b.forward(x);
    nn::Cache batched = b.init_cache({.batch = 2, .max_len = s.steps});
    nn::Cache single = b.init_cache({.max_len = s.steps});
    const std::size_t C = std::size_t(s.d_model), T = std::size_t(s.steps);
    for (std::size_t t = 0; t < T; ++t) {
      const Tensor<2> x_t = xt::view(x, xt::all(), t, xt::all());
      const Tensor<2> y_t = b.step(x_t, batched);
      for (std::size_t n = 0; n < 2; ++n)
        if (!allclose(y_t.data() + n * C, yf.data() + (n * T + t) * C, C)) return false;
      const Tensor<1> x0 = xt::view(x, 0, t, xt::all());
      const Tensor<1> y0 = b.step(x0, single);
      if (!allclose(y0.data(), yf.data() + t * C, C)) return false;
    }
  }
  return true;
}

// A causal encoder stack of `depth` blocks: step t equals forward() on the
// first t + 1 steps (the stack ends in a mean over time and a head), batched.
bool encoder_steps_equal_forward(const Sizes& s) {
  Generator gen(s.seed);
  nn::Sequential m = nn::transformer_encoder(4, s.d_model, s.n_heads, s.d_ff, s.depth, 3, gen, s.steps, true);
  m.eval();
  Generator data(s.seed + 1);
  const Tensor<3> x = randn3(data, 2, std::size_t(s.steps), 4);
  nn::Cache cache = m.init_cache({.batch = 2, .max_len = s.steps});
  for (std::size_t t = 0; t < std::size_t(s.steps); ++t) {
    const xt::xarray<float> x_t = xt::view(x, xt::all(), t, xt::all());
    const xt::xarray<float> y_t = m.step(x_t, cache);                                    // (2, 3)
    const xt::xarray<float> prefix = xt::view(x, xt::all(), xt::range(0, t + 1), xt::all());
    const xt::xarray<float> y_f = m.forward(prefix);                                     // (2, 3)
    if (y_t.shape() != y_f.shape() || !allclose(y_t.data(), y_f.data(), y_f.size())) return false;
  }
  return true;
}

Report run(const nlohmann::json& spec, const RunContext&) {
  const Sizes s{spec.at("d_model").get<int>(), spec.at("n_heads").get<int>(), spec.at("d_ff").get<int>(),
                spec.at("steps").get<int>(),   spec.at("depth").get<int>(),   spec.at("seed").get<std::uint64_t>()};
  const std::size_t C = std::size_t(s.d_model);
  Report r;
  auto line = [&r](const std::string& text) { r.text += text + "\n"; };

  // 1. one head by hand: q [1, 0], keys [1, 0] and [0, 1], values 10 and 20
  {
    const Tensor<2> q = {{1.0f, 0.0f}};
    const Tensor<2> k = {{1.0f, 0.0f}, {0.0f, 1.0f}};
    const Tensor<2> v = {{10.0f}, {20.0f}};
    const auto [y, w] = F::scaled_dot_product_attention(q, k, v);
    line(py_float(py_round(y(0, 0), 4)));
    r.data["by_hand"] = {{"output", y(0, 0)}, {"weights", {w(0, 0), w(0, 1)}}};
  }
  // 2. several heads: the shapes, and the four projection matrices W_Q, W_K, W_V
  // (packed in in_proj_weight, 3C rows) and W_O (out_proj.weight)
  {
    Generator gen(s.seed);
    nn::MultiheadSelfAttention m(nn::MultiheadSelfAttentionOptions(s.d_model, s.n_heads).bias(false), gen);
    const Tensor<2> y = m.forward(Tensor<2>(xt::ones<float>({std::size_t(4), C})));
    std::size_t matrices = 0;
    for (const auto& p : m.named_parameters())
      if (p.shape.size() == 2) matrices += p.shape[0] / p.shape[1];  // (kC, C): k matrices of (C, C)
    line(shape_text(shape_of(y)));
    line(std::to_string(matrices));
    r.data["heads"] = {{"shape", shape_of(y)}, {"projection_matrices", matrices},
                       {"parameter_tensors", m.named_parameters().size()}};
  }
  // 3. the causal cache: step called T times equals forward on the whole sequence
  {
    Generator gen(s.seed);
    nn::MultiheadSelfAttention m(nn::MultiheadSelfAttentionOptions(s.d_model, s.n_heads).bias(false).causal(true),
                                 gen);
    Generator data(s.seed + 1);
    const bool same = layer_steps_equal_forward(m, randn2(data, std::size_t(s.steps), C));
    line(py_bool(same));
    r.data["layer_step_equals_forward"] = same;
  }
  // 4. the block: shape and parameter tensors; mean 0 and std 1 after the last LayerNorm
  {
    Generator gen(s.seed);
    nn::TransformerBlock b(nn::TransformerBlockOptions(s.d_model, s.n_heads, s.d_ff), gen);
    Generator data(s.seed + 1);
    const Tensor<2> y = b.forward(randn2(data, 4, C));
    double mean = 0.0, std_mean = 0.0;
    for (std::size_t i = 0; i < y.shape()[0]; ++i) {
      double m = 0.0, var = 0.0;
      for (std::size_t c = 0; c < C; ++c) m += y(i, c);
      m /= double(C);
      for (std::size_t c = 0; c < C; ++c) var += (y(i, c) - m) * (y(i, c) - m);
      mean += m;
      std_mean += std::sqrt(var / double(C));  // y.std(axis=-1): the population std
    }
    mean /= double(y.shape()[0]);
    std_mean /= double(y.shape()[0]);
    line(shape_text(shape_of(y)) + " " + std::to_string(b.named_parameters().size()));
    // the mean is 0 up to float rounding, whose sign is no result: + 0.0 prints -0.0 as 0.0
    line(py_float(py_round(mean, 4) + 0.0) + " " + py_float(py_round(std_mean, 4)));
    r.data["block"] = {{"shape", shape_of(y)}, {"parameter_tensors", b.named_parameters().size()}, {"mean", mean},
                       {"std", std_mean}};
  }
  // 5. positions: row 1 of the sinusoidal table; the learned table on a zero input
  {
    const Tensor<2> p = nn::sinusoidal_positions(4, 4);
    std::vector<double> row;
    for (std::size_t c = 0; c < 4; ++c) row.push_back(py_round(p(1, c), 4));
    line(py_float_list(row));
    Generator gen(s.seed);
    nn::LearnedPositions m(4, 3, gen);
    const Tensor<2> z = m.forward(Tensor<2>(xt::zeros<float>({2, 3})));
    const bool exact = std::equal(z.begin(), z.end(), m.weight().data());  // z == P[:2]
    line(shape_text(shape_of(z)) + " " + std::to_string(m.named_parameters().size()) + " " + py_bool(exact));
    r.data["positions"] = {{"sinusoidal_row_1", row}, {"learned_shape", shape_of(z)}, {"learned_equals_P", exact}};
  }
  // 6. the encoder, from a sequence to a label
  {
    Generator gen(s.seed);
    nn::Sequential m = nn::transformer_encoder(4, s.d_model, s.n_heads, s.d_ff, s.depth, 3, gen, 16);
    const xt::xarray<float> y = m.forward(xt::ones<float>({5, 4}));
    line(shape_text(shape_of(y)));
    r.data["encoder"] = {{"shape", shape_of(y)}, {"parameters", m.store().count()}};
  }
  line("beyond the page");
  {
    const bool block = block_steps_equal_forward(s);
    const bool encoder = encoder_steps_equal_forward(s);
    line("block step = forward: " + py_bool(block));
    line("encoder step = forward: " + py_bool(encoder));
    r.data["block_step_equals_forward"] = block;
    r.data["encoder_step_equals_forward"] = encoder;
  }
  return r;
}

// Multiply-adds of the step checks, dominated by the encoder's forward over
// every prefix (which is the point: step t must equal the whole model on the
// first t + 1 steps). Per block and stream, a prefix of n steps costs
// n·(4C² + 2C·F) for the projections and the feed-forward and 2n²·C for the
// scores and the mixing; summed over n = 1..T. The layer and block checks are
// a few forwards over T steps, counted the same way.
double step_checks_multiply_adds(double C, double F, double T, double depth) {
  const double dense = 4 * C * C + 2 * C * F;
  const double prefixes = dense * T * (T + 1) / 2 + 2 * C * T * (T + 1) * (2 * T + 1) / 6;
  const double encoder = 2 * depth * prefixes;                    // batch of 2
  const double blocks = 2 * 3 * 2 * (dense * T + 2 * C * T * T);  // both norm_first, forward + two streams
  return encoder + blocks;
}

// A minute or two of one core: d_model 64, d_ff 256, 512 steps and depth 8
// (1.96e11) took 87 s of CPU, about 2.2·10⁹ multiply-adds a second for these
// small matrices.
constexpr double kMaxMultiplyAdds = 2e11;

void check(const nlohmann::json& spec, const std::string& file) {
  require_heads_divide_width(spec, file);
  const int C = spec.at("d_model").get<int>(), F = spec.at("d_ff").get<int>(), T = spec.at("steps").get<int>(),
            depth = spec.at("depth").get<int>();
  const double work = step_checks_multiply_adds(C, F, T, depth);
  if (work > kMaxMultiplyAdds)
    throw spec::SpecError(file, "/steps",
                          fmt::format("steps {} with d_model {}, d_ff {} and depth {} needs about {:.1e} multiply-adds "
                                      "for the step checks (at most {:.0e}, a minute or two of one core); use fewer steps, a "
                                      "smaller depth, d_model or d_ff",
                                      T, C, F, depth, work, kMaxMultiplyAdds));
}

}  // namespace

// The step checks hold the most: a causal encoder of `depth` blocks (its
// parameters, the activations every block keeps from a forward for its
// backward, the (B, H, T, T) weights and scores included; the estimate is 1.08 times what was
// measured at d_model 32, 8 heads, d_ff 64, 256 steps, depth 2) and its batched
// cache of keys and values, with B = 2 as the checks use; the block check
// holds one block and two caches, less. The page's fixed examples are small.
MemoryEstimate memory(const nlohmann::json& spec, int) {
  const double C = spec.at("d_model").get<int>(), H = spec.at("n_heads").get<int>(),
               F = spec.at("d_ff").get<int>(), T = spec.at("steps").get<int>(),
               depth = std::max(1, spec.at("depth").get<int>()), B = 2;
  const double block_params = 4 * C * C + 4 * C + 2 * C * F + F + 5 * C;
  const double params = depth * block_params + T * C + 8 * C + 3;
  const double block_acts = B * T * (10 * C + 2 * F) + 2 * B * H * T * T;
  const double caches = 2 * depth * B * T * C + 2 * T * C;
  // the half block: the temporaries of the block being computed (calibrated, see above)
  const double floats = params + (depth + 0.5) * block_acts + caches;
  return {.bytes = 4 * floats, .threads = 1, .parameter = "/steps",
          .reduce = "steps, d_model, d_ff or depth"};
}

Experiment attention_page_experiment() {
  using spec::Type;
  return {.name = "attention_page",
          .summary = "the attention page's six examples through the library, then step = forward for a causal block "
                     "and encoder",
          .course_order = 21,
          .params = {d_model_param(8, "width of the layer, block and encoder (examples 2-4, 6 and the step checks)", 1, 512),
                     n_heads_param(2, "heads; must divide d_model"),
                     {.name = "d_ff", .type = Type::Integer, .default_value = 16,
                      .doc = "feed-forward width of the blocks", .min = 1, .max = 4096},
                     {.name = "steps", .type = Type::Integer, .default_value = 5,
                      .doc = "length of the streamed sequences (example 3 and the step checks; sizes whose checks need more than 2e11 multiply-adds are refused)", .min = 1,
                      .max = 512},
                     {.name = "depth", .type = Type::Integer, .default_value = 1,
                      .doc = "blocks in the encoder (example 6 and the encoder step check)", .min = 0, .max = 24},
                     seed_param()},
          .check = check,
          .run = run,
          .memory = memory};
}

}  // namespace attnlab::experiments
