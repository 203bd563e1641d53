// Central finite differences, in double, of the pre-norm block's backward
// pass: the input and all twelve parameter tensors, with and without
// dropout (the same masks each evaluation: a generator re-seeded per call),
// and causal.
#include <gtest/gtest.h>

#include <numeric>

#include "kernels/pre_norm_block.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::testing {
namespace {

struct BlockCase {
  int B = 2, T = 3, C = 4, H = 2, F = 8;
  double dropout = 0.0;
  bool causal = false;
};

void check_block(const BlockCase& c) {
  const kernels::BlockDims d{c.B, c.T, c.C, c.H, c.F, c.dropout, c.causal};
  const auto specs = kernels::pre_norm_block_param_specs(c.C, c.F);
  std::vector<std::vector<double>> values, grads;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::size_t n = std::accumulate(specs[i].shape.begin(), specs[i].shape.end(), std::size_t{1},
                                          std::multiplies<>());
    values.emplace_back(n);
    grads.emplace_back(n, 0.0);
    fill_pseudo_random(values.back().data(), n, 100 + static_cast<unsigned>(i), 0.5);
  }
  // LayerNorm weights near 1, as trained ones are.
  for (double& v : values[0]) v += 1.0;
  for (double& v : values[6]) v += 1.0;
  auto tensors = [](std::vector<std::vector<double>>& t) {
    return kernels::PreNormTensors<double>{t[0].data(), t[1].data(), t[2].data(), t[3].data(),
                                        t[4].data(), t[5].data(), t[6].data(), t[7].data(),
                                        t[8].data(), t[9].data(), t[10].data(), t[11].data()};
  };
  const std::size_t NC = static_cast<std::size_t>(c.B) * c.T * c.C;
  std::vector<double> x(NC), out(NC), r(NC), dx(NC, 0.0);
  fill_pseudo_random(x.data(), NC, 7);
  fill_pseudo_random(r.data(), NC, 8);
  kernels::PreNormWorkspace<double> ws(c.B, c.T, c.C, c.H, c.F);

  auto loss = [&] {
    random::Generator g(3);  // same masks on every evaluation
    kernels::pre_norm_block_forward(out.data(), ws, x.data(), tensors(values), d, c.dropout > 0 ? &g : nullptr);
    double s = 0;
    for (std::size_t i = 0; i < NC; ++i) s += out[i] * r[i];
    return s;
  };
  loss();
  kernels::pre_norm_block_backward(dx.data(), tensors(grads), ws, r.data(), x.data(), tensors(values), d);
  if (c.dropout > 0) {
    EXPECT_NE(std::count(ws.keep_attn.begin(), ws.keep_attn.begin() + c.B * c.H * c.T * c.T, 0), 0)
        << "choose a seed that drops something, or the dropout path is not exercised";
  }
  expect_gradient_close("x", dx.data(), numerical_gradient(loss, x.data(), NC), 1e-6);
  for (std::size_t i = 0; i < specs.size(); ++i)
    expect_gradient_close(specs[i].name, grads[i].data(),
                          numerical_gradient(loss, values[i].data(), values[i].size()), 1e-6);
}

TEST(TransformerBlockGradcheck, EvaluationMode) { check_block({}); }

TEST(TransformerBlockGradcheck, WithDropoutMasks) {
  BlockCase c;
  c.dropout = 0.3;
  check_block(c);
}

TEST(TransformerBlockGradcheck, OneHeadLongerSequence) {
  BlockCase c;
  c.B = 1;
  c.T = 5;
  c.H = 1;
  check_block(c);
}

TEST(TransformerBlockGradcheck, CausalWithDropout) {
  BlockCase c;
  c.T = 4;
  c.dropout = 0.2;
  c.causal = true;
  check_block(c);
}

}  // namespace
}  // namespace attnlab::testing
