// Scaled dot-product attention (lib/kernels/scaled_dot_product_attention): the
// attention page's example by hand, PyTorch 1.13's
// torch._C._nn._scaled_dot_product_attention on batched cases with a boolean
// mask (True = takes part), a float mask and is_causal (data/kernels/sdpa.json,
// scripts/make_attention_page_goldens.py), and central finite differences in
// double for the backward pass with every mask.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/scaled_dot_product_attention.hpp"
#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/parity.hpp"

namespace attnlab::kernels {
namespace {

using attnlab::testing::as_floats;
using attnlab::testing::expect_gradient_close;
using attnlab::testing::expect_tensor_close;
using attnlab::testing::fill_pseudo_random;
using attnlab::testing::load_golden;
using attnlab::testing::numerical_gradient;

TEST(ScaledDotProductAttention, ThePagesExampleByHand) {
  // q = [1, 0], keys [1, 0] and [0, 1], d_k = 2: scores 1/sqrt(2) = 0.7071 and 0;
  // softmax: e^0.7071 / (e^0.7071 + 1) = 2.0281 / 3.0281 = 0.6698 and 0.3302;
  // output 0.6698·10 + 0.3302·20 = 13.3024
  const float q[] = {1, 0}, k[] = {1, 0, 0, 1}, v[] = {10, 20};
  float out = 0, w[2] = {};
  sdpa_forward<float>(&out, w, q, k, v, {}, 1, 1, 2, 2, 1);
  EXPECT_NEAR(w[0], 0.6698, 5e-5);
  EXPECT_NEAR(w[1], 0.3302, 5e-5);
  EXPECT_NEAR(out, 13.3024, 5e-5);
  EXPECT_FLOAT_EQ(w[0] + w[1], 1.0f);
}

std::vector<float> floats_or_inf(const nlohmann::json& j) {
  std::vector<float> v;
  for (const auto& x : j) v.push_back(x.is_string() ? -std::numeric_limits<float>::infinity() : float(x.get<double>()));
  return v;
}

TEST(ScaledDotProductAttention, EqualsPyTorch) {
  const auto golden = load_golden("kernels/sdpa.json");
  for (const auto& c : golden.at("cases")) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const auto sq = c.at("shape_q").get<std::vector<int>>(), sk = c.at("shape_k").get<std::vector<int>>(),
               sv = c.at("shape_v").get<std::vector<int>>();
    const bool batched = sq.size() == 3;
    const int B = batched ? sq[0] : 1, L = sq[sq.size() - 2], E = sq.back(), S = sk[sk.size() - 2], Ev = sv.back();
    const auto q = as_floats(c.at("q")), k = as_floats(c.at("k")), v = as_floats(c.at("v"));
    SdpaMask<float> mask;
    std::vector<std::uint8_t> keep;
    std::vector<float> add;
    if (c.contains("mask_bool")) {
      for (const auto& x : c.at("mask_bool")) keep.push_back(std::uint8_t(x.get<int>()));
      mask.keep = keep.data();
    }
    if (c.contains("mask_float")) {
      add = floats_or_inf(c.at("mask_float"));
      mask.add = add.data();
    }
    mask.causal = c.value("is_causal", false);
    std::vector<float> out(std::size_t(B) * L * Ev), w(std::size_t(B) * L * S);
    sdpa_forward(out.data(), w.data(), q.data(), k.data(), v.data(), mask, B, L, S, E, Ev);
    expect_tensor_close("out", out.data(), as_floats(c.at("out")), 1e-6);
    expect_tensor_close("weights", w.data(), as_floats(c.at("weights")), 1e-6);
    if (!c.contains("g")) continue;
    // loss = sum(out * g) + sum(weights * gw)
    std::vector<float> dq(q.size()), dk(k.size()), dv(v.size()), scratch(S);
    const auto g = as_floats(c.at("g")), gw = as_floats(c.at("gw"));
    sdpa_backward(dq.data(), dk.data(), dv.data(), scratch.data(), g.data(), gw.data(), w.data(), q.data(), k.data(),
                  v.data(), B, L, S, E, Ev);
    expect_tensor_close("d_q", dq.data(), as_floats(c.at("d_q")), 1e-5);
    expect_tensor_close("d_k", dk.data(), as_floats(c.at("d_k")), 1e-5);
    expect_tensor_close("d_v", dv.data(), as_floats(c.at("d_v")), 1e-5);
  }
}

struct MaskCase {
  const char* name;
  bool keep, add, causal, per_batch;
};

class SdpaGradcheck : public ::testing::TestWithParam<MaskCase> {};

TEST_P(SdpaGradcheck, BackwardMatchesFiniteDifferences) {
  const MaskCase mc = GetParam();
  const int B = 2, L = 3, S = 4, E = 3, Ev = 2;
  std::vector<double> q(B * L * E), k(B * S * E), v(B * S * Ev), g(B * L * Ev), gw(B * L * S);
  fill_pseudo_random(q.data(), q.size(), 1);
  fill_pseudo_random(k.data(), k.size(), 2);
  fill_pseudo_random(v.data(), v.size(), 3);
  fill_pseudo_random(g.data(), g.size(), 4);
  fill_pseudo_random(gw.data(), gw.size(), 5);
  const std::size_t mask_n = std::size_t(mc.per_batch ? B : 1) * L * S;
  std::vector<std::uint8_t> keep(mask_n, 1);
  std::vector<double> add(mask_n);
  fill_pseudo_random(add.data(), add.size(), 6, 0.8);
  keep[1] = 0;                 // query 0 may not see key 1
  keep[mask_n - 1] = 0;
  add[2] = -std::numeric_limits<double>::infinity();
  SdpaMask<double> mask;
  if (mc.keep) mask.keep = keep.data();
  if (mc.add) mask.add = add.data();
  mask.causal = mc.causal;
  mask.per_batch = mc.per_batch;
  std::vector<double> out(B * L * Ev), w(B * L * S);
  auto loss = [&] {
    sdpa_forward(out.data(), w.data(), q.data(), k.data(), v.data(), mask, B, L, S, E, Ev);
    double l = 0;
    for (std::size_t i = 0; i < out.size(); ++i) l += out[i] * g[i];
    for (std::size_t i = 0; i < w.size(); ++i) l += w[i] * gw[i];
    return l;
  };
  loss();
  std::vector<double> dq(q.size()), dk(k.size()), dv(v.size()), scratch(S);
  sdpa_backward(dq.data(), dk.data(), dv.data(), scratch.data(), g.data(), gw.data(), w.data(), q.data(), k.data(),
                v.data(), B, L, S, E, Ev);
  expect_gradient_close("d_q", dq.data(), numerical_gradient(loss, q.data(), q.size()));
  expect_gradient_close("d_k", dk.data(), numerical_gradient(loss, k.data(), k.size()));
  expect_gradient_close("d_v", dv.data(), numerical_gradient(loss, v.data(), v.size()));
}

INSTANTIATE_TEST_SUITE_P(Masks, SdpaGradcheck,
                         ::testing::Values(MaskCase{"none", false, false, false, false},
                                           MaskCase{"bool", true, false, false, false},
                                           MaskCase{"float", false, true, false, false},
                                           MaskCase{"causal", false, false, true, false},
                                           MaskCase{"all_per_batch", true, true, true, true}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ScaledDotProductAttention, AllBlockedRowIsZeroNotNaN) {
  const double q[] = {1, 0}, k[] = {1, 0, 0, 1}, v[] = {10, 20};
  const std::uint8_t keep[] = {0, 0};
  SdpaMask<double> mask;
  mask.keep = keep;
  double out = -1, w[2] = {-1, -1};
  sdpa_forward<double>(&out, w, q, k, v, mask, 1, 1, 2, 2, 1);
  EXPECT_EQ(out, 0.0);
  EXPECT_EQ(w[0], 0.0);
  EXPECT_EQ(w[1], 0.0);
}

}  // namespace
}  // namespace attnlab::kernels
