// The causal cache (lib/kernels/attention_cache): attention_step called T times
// equals the causal forward pass (mha_forward with MhaMasks::causal) row for
// row, batched, with packed or separate weights, with and without biases, in
// float (within 1e-5, the page's tolerance) and double; the causal flag
// equals PyTorch's triu(ones(T, T), 1) boolean attn_mask exactly; a step
// beyond the cache's capacity is refused naming both numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/attention_cache.hpp"
#include "kernels/multihead_attention.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

using attnlab::testing::fill_pseudo_random;

struct StepCase {
  int B, T, C, H;
  bool bias, packed;
};

template <class T>
struct Layer {
  std::vector<T> in_w, in_b, out_w, out_b, q_w, k_w, v_w;
  MhaParams<T> params(const StepCase& c) const {
    MhaParams<T> p = mha_packed<T>(in_w.data(), c.bias ? in_b.data() : nullptr, out_w.data(),
                                   c.bias ? out_b.data() : nullptr, c.C);
    if (!c.packed) {
      p.q_proj_weight = q_w.data();
      p.k_proj_weight = k_w.data();
      p.v_proj_weight = v_w.data();
    }
    return p;
  }
};

template <class T>
double max_step_difference(const StepCase& c) {
  const std::size_t C = c.C, BT = std::size_t(c.B) * c.T;
  Layer<T> l;
  std::vector<double> buf(3 * C * C + 3 * C + C * C + C + 3 * C * C);
  fill_pseudo_random(buf.data(), buf.size(), 7, 0.5);
  std::size_t at = 0;
  auto take = [&](std::vector<T>& v, std::size_t n) {
    v.assign(buf.begin() + long(at), buf.begin() + long(at + n));
    at += n;
  };
  take(l.in_w, 3 * C * C);
  take(l.in_b, 3 * C);
  take(l.out_w, C * C);
  take(l.out_b, C);
  take(l.q_w, C * C);
  take(l.k_w, C * C);
  take(l.v_w, C * C);
  std::vector<double> xd(BT * C);
  fill_pseudo_random(xd.data(), xd.size(), 3);
  const std::vector<T> x(xd.begin(), xd.end());  // (B, T, C)

  // the causal forward over the whole sequence
  const MhaDims d = mha_dims(c.B, c.T, c.T, c.C, c.H);
  std::vector<T> yf(BT * C), cache(mha_cache_size(d));
  MhaMasks<T> masks;
  masks.causal = true;
  mha_forward<T>(yf.data(), nullptr, MhaWeights::none, cache.data(), x.data(), x.data(), x.data(), masks, {},
                 l.params(c), d);

  // T steps, each fed (B, C): row t of every sequence
  const KvCacheDims kd{.B = c.B, .C = c.C, .H = c.H, .L = c.T};
  std::vector<T> keys(kv_cache_size(kd)), values(kv_cache_size(kd)), scratch(attention_step_scratch_size(kd));
  std::vector<T> xt(std::size_t(c.B) * C), yt(std::size_t(c.B) * C);
  double worst = 0;
  for (int t = 0; t < c.T; ++t) {
    for (int b = 0; b < c.B; ++b)
      for (std::size_t e = 0; e < C; ++e) xt[b * C + e] = x[(std::size_t(b) * c.T + t) * C + e];
    attention_step(yt.data(), scratch.data(), keys.data(), values.data(), t, xt.data(), l.params(c), kd);
    for (int b = 0; b < c.B; ++b)
      for (std::size_t e = 0; e < C; ++e)
        worst = std::max(worst, std::abs(double(yt[b * C + e]) - double(yf[(std::size_t(b) * c.T + t) * C + e])));
  }
  return worst;
}

TEST(AttentionCache, StepTTimesEqualsTheCausalForward) {
  for (const StepCase& c : {StepCase{1, 5, 8, 2, false, true}, StepCase{3, 7, 8, 2, true, true},
                            StepCase{2, 40, 64, 8, true, true}, StepCase{2, 6, 12, 3, true, false},
                            StepCase{1, 1, 4, 4, false, false}}) {
    SCOPED_TRACE("B=" + std::to_string(c.B) + " T=" + std::to_string(c.T) + " C=" + std::to_string(c.C) +
                 " H=" + std::to_string(c.H) + (c.bias ? " bias" : "") + (c.packed ? " packed" : " separate"));
    const double f = max_step_difference<float>(c);
    const double d = max_step_difference<double>(c);
    std::printf("[ figure ] B=%d T=%d C=%d H=%d: max |step - forward| float %.2e, double %.2e\n", c.B, c.T, c.C, c.H,
                f, d);
    EXPECT_LE(f, 1e-5);
    EXPECT_LE(d, 1e-12);
  }
}

TEST(AttentionCache, CausalFlagEqualsTheTriangularBoolMask) {
  const int B = 2, T = 5, C = 8, H = 2;
  const MhaDims d = mha_dims(B, T, T, C, H);
  std::vector<double> w(4 * C * C + 4 * C), x(B * T * C);
  fill_pseudo_random(w.data(), w.size(), 1, 0.5);
  fill_pseudo_random(x.data(), x.size(), 2);
  const auto p = mha_packed(w.data(), w.data() + 3 * C * C, w.data() + 3 * C * C + 3 * C,
                            w.data() + 4 * C * C + 3 * C, C);
  std::vector<std::uint8_t> triu(T * T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) triu[i * T + j] = j > i;
  std::vector<double> y1(B * T * C), y2(B * T * C), w1(B * T * T), w2(B * T * T), c1(mha_cache_size(d)),
      c2(mha_cache_size(d));
  MhaMasks<double> causal, boolean;
  causal.causal = true;
  boolean.attn_bool = triu.data();
  mha_forward<double>(y1.data(), w1.data(), MhaWeights::averaged, c1.data(), x.data(), x.data(), x.data(), causal, {},
                      p, d);
  mha_forward<double>(y2.data(), w2.data(), MhaWeights::averaged, c2.data(), x.data(), x.data(), x.data(), boolean,
                      {}, p, d);
  EXPECT_EQ(y1, y2);
  EXPECT_EQ(w1, w2);
  EXPECT_EQ(w1[1], 0.0);        // query 0 does not see key 1
  EXPECT_GT(w1[T + 1], 0.0);    // query 1 sees key 1
}

TEST(AttentionCache, AStepBeyondTheCapacityIsRefused) {
  const KvCacheDims kd{.B = 1, .C = 4, .H = 2, .L = 3};
  std::vector<float> keys(kv_cache_size(kd)), values(kv_cache_size(kd)), scratch(attention_step_scratch_size(kd));
  std::vector<float> w(3 * 16 + 16), x(4, 0.5f), y(4);
  const auto p = mha_packed<float>(w.data(), nullptr, w.data() + 48, nullptr, 4);
  for (int t = 0; t < 3; ++t) attention_step(y.data(), scratch.data(), keys.data(), values.data(), t, x.data(), p, kd);
  try {
    attention_step(y.data(), scratch.data(), keys.data(), values.data(), 3, x.data(), p, kd);
    FAIL() << "expected std::length_error";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("step 4 does not fit a cache of max_len 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_kv_cache_dims({.B = 1, .C = 6, .H = 4, .L = 3}), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::kernels
