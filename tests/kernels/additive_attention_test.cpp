// Additive (Bahdanau) attention (lib/kernels/additive_attention): a case by hand,
// central finite differences in double for every input and parameter (with
// key padding, the weights' own gradient, and the key projection), a fully
// padded row, and T queries at once equal to T single decoder steps. The
// PyTorch twin's figures are checked through the public door
// (tests/api/attention_page_modules_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/additive_attention.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

using attnlab::testing::expect_gradient_close;
using attnlab::testing::fill_pseudo_random;
using attnlab::testing::numerical_gradient;

TEST(AdditiveAttention, ACaseByHand) {
  // one query, two keys, A = 1: W_a = [1], v_a = [2], pk = U_a h = [0, 1]
  //   e_0 = 2 tanh(0.5 + 0) = 0.924234,  e_1 = 2 tanh(0.5 + 1) = 1.810296
  //   alpha = softmax(e) = [0.291923, 0.708077]; c = 0.291923·10 + 0.708077·20 = 17.080769
  const double query[] = {0.5}, pk[] = {0.0, 1.0}, values[] = {10, 20}, W_a[] = {1}, v_a[] = {2};
  double context = 0, w[2] = {}, scratch[1];
  additive_attention_forward<double>(&context, w, scratch, query, pk, values, nullptr, W_a, v_a,
                                     {.B = 1, .T = 1, .S = 2, .Dq = 1, .Dk = 1, .A = 1, .Dv = 1});
  EXPECT_NEAR(w[0], 1 / (1 + std::exp(2 * std::tanh(1.5) - 2 * std::tanh(0.5))), 1e-12);
  EXPECT_NEAR(w[0], 0.291923, 1e-6);
  EXPECT_NEAR(context, 17.080769, 1e-6);
}

struct Problem {
  AdditiveDims d{.B = 2, .T = 3, .S = 4, .Dq = 3, .Dk = 5, .A = 4, .Dv = 2};
  std::vector<double> query, keys, values, W_a, U_a, v_a, g, gw, pk, context, weights;
  std::vector<std::uint8_t> padding;
  Problem() {
    const auto sz = [](int a, int b, int c = 1) { return std::size_t(a) * b * c; };
    query.resize(sz(d.B, d.T, d.Dq));
    keys.resize(sz(d.B, d.S, d.Dk));
    values.resize(sz(d.B, d.S, d.Dv));
    W_a.resize(sz(d.A, d.Dq));
    U_a.resize(sz(d.A, d.Dk));
    v_a.resize(d.A);
    g.resize(sz(d.B, d.T, d.Dv));
    gw.resize(sz(d.B, d.T, d.S));
    unsigned seed = 1;
    for (auto* v : {&query, &keys, &values, &W_a, &U_a, &v_a, &g, &gw}) fill_pseudo_random(v->data(), v->size(), seed++);
    padding.assign(sz(d.B, d.S), 0);
    padding[1 * d.S + 3] = 1;  // batch 1: the last key is padding
    padding[1 * d.S + 2] = 1;
    pk.resize(sz(d.B, d.S, d.A));
    context.resize(g.size());
    weights.resize(gw.size());
  }
  // loss = sum(context * g) + sum(weights * gw), keys projected inside
  double loss() {
    additive_project_keys(pk.data(), keys.data(), U_a.data(), d.B * d.S, d.Dk, d.A);
    std::vector<double> scratch(additive_forward_scratch_size(d));
    additive_attention_forward(context.data(), weights.data(), scratch.data(), query.data(), pk.data(), values.data(),
                               padding.data(), W_a.data(), v_a.data(), d);
    double l = 0;
    for (std::size_t i = 0; i < g.size(); ++i) l += context[i] * g[i];
    for (std::size_t i = 0; i < gw.size(); ++i) l += weights[i] * gw[i];
    return l;
  }
};

TEST(AdditiveAttention, BackwardMatchesFiniteDifferences) {
  Problem p;
  p.loss();
  const AdditiveDims& d = p.d;
  std::vector<double> dq(p.query.size()), dpk(p.pk.size()), dv(p.values.size()), dW(p.W_a.size()),
      dva(p.v_a.size()), dkeys(p.keys.size()), dU(p.U_a.size()), scratch(additive_backward_scratch_size(d));
  additive_attention_backward(dq.data(), dpk.data(), dv.data(), dW.data(), dva.data(), scratch.data(), p.g.data(),
                              p.gw.data(), p.query.data(), p.pk.data(), p.values.data(), p.weights.data(),
                              p.W_a.data(), p.v_a.data(), d);
  additive_project_keys_backward(dkeys.data(), dU.data(), dpk.data(), p.keys.data(), p.U_a.data(), d.B * d.S, d.Dk,
                                 d.A);
  auto loss = [&] { return p.loss(); };
  expect_gradient_close("d_query", dq.data(), numerical_gradient(loss, p.query.data(), p.query.size()));
  expect_gradient_close("d_keys", dkeys.data(), numerical_gradient(loss, p.keys.data(), p.keys.size()));
  expect_gradient_close("d_values", dv.data(), numerical_gradient(loss, p.values.data(), p.values.size()));
  expect_gradient_close("d_W_a", dW.data(), numerical_gradient(loss, p.W_a.data(), p.W_a.size()));
  expect_gradient_close("d_U_a", dU.data(), numerical_gradient(loss, p.U_a.data(), p.U_a.size()));
  expect_gradient_close("d_v_a", dva.data(), numerical_gradient(loss, p.v_a.data(), p.v_a.size()));
  // padding gets no weight and no gradient
  for (int i = 0; i < d.T; ++i) EXPECT_EQ(p.weights[(1 * d.T + i) * d.S + 3], 0.0);
  for (int a = 0; a < d.A; ++a) EXPECT_EQ(dpk[(1 * d.S + 3) * d.A + a], 0.0);
}

TEST(AdditiveAttention, AllQueriesAtOnceEqualOneDecoderStepAtATime) {
  Problem p;
  p.loss();
  const AdditiveDims& d = p.d;
  for (int i = 0; i < d.T; ++i) {
    // query i of every batch as a (B, 1, Dq) step
    std::vector<double> q(std::size_t(d.B) * d.Dq), c(std::size_t(d.B) * d.Dv), w(std::size_t(d.B) * d.S);
    for (int b = 0; b < d.B; ++b)
      for (int e = 0; e < d.Dq; ++e) q[b * d.Dq + e] = p.query[(std::size_t(b) * d.T + i) * d.Dq + e];
    AdditiveDims step = d;
    step.T = 1;
    std::vector<double> scratch(additive_forward_scratch_size(step));
    additive_attention_forward(c.data(), w.data(), scratch.data(), q.data(), p.pk.data(), p.values.data(),
                               p.padding.data(), p.W_a.data(), p.v_a.data(), step);
    for (int b = 0; b < d.B; ++b) {
      for (int e = 0; e < d.Dv; ++e) EXPECT_EQ(c[b * d.Dv + e], p.context[(std::size_t(b) * d.T + i) * d.Dv + e]);
      for (int j = 0; j < d.S; ++j) EXPECT_EQ(w[b * d.S + j], p.weights[(std::size_t(b) * d.T + i) * d.S + j]);
    }
  }
}

TEST(AdditiveAttention, AllPaddingGivesZerosNotNaN) {
  Problem p;
  std::fill(p.padding.begin(), p.padding.begin() + p.d.S, 1);  // batch 0: every key is padding
  p.loss();
  for (int i = 0; i < p.d.T; ++i) {
    for (int j = 0; j < p.d.S; ++j) EXPECT_EQ(p.weights[std::size_t(i) * p.d.S + j], 0.0);
    for (int e = 0; e < p.d.Dv; ++e) EXPECT_EQ(p.context[std::size_t(i) * p.d.Dv + e], 0.0);
  }
  EXPECT_THROW(check_additive_dims({.B = 1, .T = 1, .S = 0, .Dq = 1, .Dk = 1, .A = 1, .Dv = 1}),
               std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::kernels
