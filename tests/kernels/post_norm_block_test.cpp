// The post-norm block (lib/models/post_norm_block) against PyTorch 1.13's
// nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
// activation="relu", batch_first=True, norm_first=False)
// (data/kernels/post_norm_block.json, scripts/make_attention_page_goldens.py):
// the state_dict order and initial weights bit for bit after manual_seed(0),
// with the generator's next word (the draw count); the eval forward (and the
// eval fast path's figures); a training forward whose four dropout masks come
// from manual_seed(7) in PyTorch's order, with the generator's next word
// after; every gradient. Then central finite differences in double (dropout
// and causal included), and for both blocks the streaming step against the
// causal forward.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "kernels/post_norm_block.hpp"
#include "kernels/pre_norm_block.hpp"
#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/parity.hpp"

namespace attnlab::testing {
namespace {

std::size_t numel(const std::vector<int>& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
}

template <class R>
kernels::PostNormTensors<R> post_tensors(std::vector<std::vector<R>>& t) {
  return {t[0].data(), t[1].data(), t[2].data(), t[3].data(), t[4].data(),  t[5].data(),
          t[6].data(), t[7].data(), t[8].data(), t[9].data(), t[10].data(), t[11].data()};
}
template <class R>
kernels::PreNormTensors<R> pre_tensors(std::vector<std::vector<R>>& t) {
  return {t[0].data(), t[1].data(), t[2].data(), t[3].data(), t[4].data(),  t[5].data(),
          t[6].data(), t[7].data(), t[8].data(), t[9].data(), t[10].data(), t[11].data()};
}

double max_abs_diff(const float* got, const std::vector<float>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(double(got[i]) - double(want[i])));
  return worst;
}

std::int64_t next_word(random::Generator& g) {
  std::int64_t w = 0;
  g.randint(&w, 1, 0, std::int64_t(1) << 31);
  return w;
}

TEST(PostNormBlock, EqualsTransformerEncoderLayer) {
  const auto golden = load_golden("kernels/post_norm_block.json");
  for (const auto& c : golden.at("cases")) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const int C = c.at("d_model"), H = c.at("nhead"), F = c.at("dim_feedforward"), B = c.at("B"), T = c.at("T");
    const double p = c.at("dropout");
    const auto specs = kernels::post_norm_block_param_specs(C, F);

    // init after manual_seed(0): names, shapes, values bit for bit, draw count
    random::Generator init(0);
    std::vector<std::vector<float>> w;
    for (const auto& s : specs) w.emplace_back(numel(s.shape));
    kernels::post_norm_block_init(init, post_tensors(w), C, F);
    const auto& sd = c.at("init").at("state_dict");
    ASSERT_EQ(sd.size(), specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
      EXPECT_EQ(sd[i].at("name").get<std::string>(), specs[i].name);
      EXPECT_EQ(sd[i].at("shape").get<std::vector<int>>(), specs[i].shape) << specs[i].name;
      const auto want = as_floats(sd[i].at("values"));
      for (std::size_t k = 0; k < want.size(); ++k)
        ASSERT_EQ(std::memcmp(&w[i][k], &want[k], sizeof(float)), 0) << specs[i].name << "[" << k << "]";
    }
    EXPECT_EQ(next_word(init), c.at("init").at("next_word_mod_2_31").get<std::int64_t>());

    // the parameters used for the forward passes (biases and norms made nonzero)
    for (std::size_t i = 0; i < specs.size(); ++i) w[i] = as_floats(c.at("state_dict")[i].at("values"));
    const auto x = as_floats(c.at("x")), g = as_floats(c.at("g"));
    const kernels::BlockDims d{B, T, C, H, F, p, c.at("causal").get<bool>()};
    kernels::PostNormWorkspace<float> ws(B, T, C, H, F);
    std::vector<float> out(x.size());
    kernels::post_norm_block_forward(out.data(), ws, x.data(), post_tensors(w), d, nullptr);
    const double eval = max_abs_diff(out.data(), as_floats(c.at("out_eval")));
    const double fast = max_abs_diff(out.data(), as_floats(c.at("out_eval_fastpath")));
    expect_tensor_close("out_eval", out.data(), as_floats(c.at("out_eval")), 1e-5);

    random::Generator train(golden.at("dropout_seed").get<std::uint64_t>());
    kernels::post_norm_block_forward(out.data(), ws, x.data(), post_tensors(w), d, &train);
    EXPECT_EQ(next_word(train), c.at("next_word_after_train_mod_2_31").get<std::int64_t>()) << "dropout draw count";
    const double trained = max_abs_diff(out.data(), as_floats(c.at("out_train")));
    expect_tensor_close("out_train", out.data(), as_floats(c.at("out_train")), 1e-5);

    std::vector<std::vector<float>> grads;
    for (const auto& s : specs) grads.emplace_back(numel(s.shape), 0.0f);
    std::vector<float> dx(x.size(), 0.0f);
    kernels::post_norm_block_backward(dx.data(), post_tensors(grads), ws, g.data(), x.data(), post_tensors(w), d);
    double worst_grad = max_abs_diff(dx.data(), as_floats(c.at("d_x")));
    expect_tensor_close("d_x", dx.data(), as_floats(c.at("d_x")), 1e-5);
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const auto want = as_floats(c.at("grads").at(specs[i].name));
      worst_grad = std::max(worst_grad, max_abs_diff(grads[i].data(), want));
      expect_tensor_close("grad " + std::string(specs[i].name), grads[i].data(), want, 1e-5);
    }
    std::printf("[ figure ] post-norm %s: init bit-identical; max |diff| eval %.2e (fast path %.2e), train %.2e, "
                "gradients %.2e\n", name.c_str(), eval, fast, trained, worst_grad);
  }
}

struct GradCase {
  int B = 2, T = 3, C = 4, H = 2, F = 6;
  double dropout = 0.0;
  bool causal = false;
};

void check_post_norm(const GradCase& c) {
  const kernels::BlockDims d{c.B, c.T, c.C, c.H, c.F, c.dropout, c.causal};
  const auto specs = kernels::post_norm_block_param_specs(c.C, c.F);
  std::vector<std::vector<double>> values, grads;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    values.emplace_back(numel(specs[i].shape));
    grads.emplace_back(numel(specs[i].shape), 0.0);
    fill_pseudo_random(values.back().data(), values.back().size(), 200 + unsigned(i), 0.5);
  }
  for (double& v : values[8]) v += 1.0;  // norm weights near 1
  for (double& v : values[10]) v += 1.0;
  const std::size_t NC = std::size_t(c.B) * c.T * c.C;
  std::vector<double> x(NC), out(NC), r(NC), dx(NC, 0.0);
  fill_pseudo_random(x.data(), NC, 9);
  fill_pseudo_random(r.data(), NC, 10);
  kernels::PostNormWorkspace<double> ws(c.B, c.T, c.C, c.H, c.F);
  auto loss = [&] {
    random::Generator g(5);  // the same four masks on every evaluation
    kernels::post_norm_block_forward(out.data(), ws, x.data(), post_tensors(values), d, c.dropout > 0 ? &g : nullptr);
    double s = 0;
    for (std::size_t i = 0; i < NC; ++i) s += out[i] * r[i];
    return s;
  };
  loss();
  kernels::post_norm_block_backward(dx.data(), post_tensors(grads), ws, r.data(), x.data(), post_tensors(values), d);
  if (c.dropout > 0) {
    EXPECT_NE(std::count(ws.keep_mid.begin(), ws.keep_mid.begin() + long(NC / c.C * c.F), 0), 0);
    EXPECT_NE(std::count(ws.keep1.begin(), ws.keep1.begin() + long(NC), 0), 0);
  }
  expect_gradient_close("x", dx.data(), numerical_gradient(loss, x.data(), NC), 1e-6);
  for (std::size_t i = 0; i < specs.size(); ++i)
    expect_gradient_close(specs[i].name, grads[i].data(), numerical_gradient(loss, values[i].data(), values[i].size()),
                          1e-6);
}

TEST(PostNormBlockGradcheck, EvaluationMode) { check_post_norm({}); }
TEST(PostNormBlockGradcheck, WithDropoutMasks) { check_post_norm({.dropout = 0.3}); }
TEST(PostNormBlockGradcheck, CausalWithDropout) { check_post_norm({.B = 1, .T = 5, .dropout = 0.2, .causal = true}); }

// Both blocks: step t equals row t of the causal forward, for every stream of a batch.
template <bool PostNorm>
double max_step_difference(int B, int T, int C, int H, int F) {
  const auto specs = PostNorm ? kernels::post_norm_block_param_specs(C, F) : kernels::pre_norm_block_param_specs(C, F);
  std::vector<std::vector<float>> w;
  for (const auto& s : specs) w.emplace_back(numel(s.shape));
  random::Generator init(0);
  if constexpr (PostNorm)
    kernels::post_norm_block_init(init, post_tensors(w), C, F);
  else
    kernels::pre_norm_block_init(init, pre_tensors(w), C, F);
  const kernels::BlockDims d{B, T, C, H, F, 0.0, true};
  const std::size_t N = std::size_t(B) * T * C;
  std::vector<float> x(N), yf(N);
  random::Generator data(1);
  data.normal(x.data(), N);
  const kernels::KvCacheDims kd{.B = B, .C = C, .H = H, .L = T};
  std::vector<float> keys(kernels::kv_cache_size(kd)), values(kernels::kv_cache_size(kd));
  std::vector<float> scratch(PostNorm ? kernels::post_norm_step_scratch_size(B, C, H, F, T)
                                      : kernels::pre_norm_step_scratch_size(B, C, H, F, T));
  if constexpr (PostNorm) {
    kernels::PostNormWorkspace<float> ws(B, T, C, H, F);
    kernels::post_norm_block_forward(yf.data(), ws, x.data(), post_tensors(w), d, nullptr);
  } else {
    kernels::PreNormWorkspace<float> ws(B, T, C, H, F);
    kernels::pre_norm_block_forward(yf.data(), ws, x.data(), pre_tensors(w), d, nullptr);
  }
  std::vector<float> xt(std::size_t(B) * C), yt(std::size_t(B) * C);
  double worst = 0;
  for (int t = 0; t < T; ++t) {
    for (int b = 0; b < B; ++b) std::copy_n(&x[(std::size_t(b) * T + t) * C], C, &xt[std::size_t(b) * C]);
    if constexpr (PostNorm)
      kernels::post_norm_block_step(yt.data(), scratch.data(), keys.data(), values.data(), t, T, xt.data(),
                                   post_tensors(w), d);
    else
      kernels::pre_norm_block_step(yt.data(), scratch.data(), keys.data(), values.data(), t, T, xt.data(),
                                     pre_tensors(w), d);
    for (int b = 0; b < B; ++b)
      for (int e = 0; e < C; ++e)
        worst = std::max(worst, std::abs(double(yt[std::size_t(b) * C + e]) -
                                         double(yf[(std::size_t(b) * T + t) * C + e])));
  }
  return worst;
}

TEST(BlockStep, BothBlocksStepEqualsTheCausalForward) {
  for (auto [B, T, C, H, F] : {std::array{1, 5, 8, 2, 16}, std::array{3, 12, 16, 4, 32}, std::array{2, 40, 64, 8, 128}}) {
    const double post = max_step_difference<true>(B, T, C, H, F);
    const double pre = max_step_difference<false>(B, T, C, H, F);
    std::printf("[ figure ] B=%d T=%d C=%d H=%d F=%d: max |step - forward| post-norm %.2e, pre-norm %.2e\n", B, T, C,
                H, F, post, pre);
    EXPECT_LE(post, 1e-5);
    EXPECT_LE(pre, 1e-5);
  }
}

}  // namespace
}  // namespace attnlab::testing
