// nn.Linear: a forward case by hand, finite-difference gradients, PyTorch
// parity (data/kernels/layers_parity.json) and the PyTorch initialisation
// (data/kernels/layers_init.json), both written by scripts/make_layer_goldens.py.
#include "kernels/linear.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "random/generator.hpp"
#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/layer_parity.hpp"

namespace {

using namespace attnlab::testing;          // golden files, finite differences
using namespace attnlab::testing::layers;  // the comparisons with PyTorch

TEST(Linear, ForwardByHand) {
  // N=2, C=2, OC=3: the weight rows pick x0, x1 and x0 + x1.
  const float inp[] = {1, 2,       // row 0
                       -3, 0.5f};  // row 1
  const float weight[] = {1, 0, 0, 1, 1, 1};  // (3, 2)
  const float bias[] = {0.5f, -1, 0};
  float out[6];
  attnlab::kernels::linear_forward(out, inp, weight, bias, 2, 2, 3);
  // row 0: [1 + 0.5, 2 - 1, 1 + 2 + 0] = [1.5, 1, 3]
  // row 1: [-3 + 0.5, 0.5 - 1, -3 + 0.5 + 0] = [-2.5, -0.5, -2.5]
  const float want[] = {1.5f, 1, 3, -2.5f, -0.5f, -2.5f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;
  // without bias: row 0 = [1, 2, 3], row 1 = [-3, 0.5, -2.5]
  attnlab::kernels::linear_forward<float>(out, inp, weight, nullptr, 2, 2, 3);
  const float want_nobias[] = {1, 2, 3, -3, 0.5f, -2.5f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want_nobias[i]) << i;
}

TEST(Linear, GradientCheck) {
  const int N = 3, C = 4, OC = 2;
  std::vector<double> inp(N * C), weight(OC * C), bias(OC), g(N * OC), out(N * OC);
  fill_pseudo_random(inp.data(), inp.size(), 1);
  fill_pseudo_random(weight.data(), weight.size(), 2);
  fill_pseudo_random(bias.data(), bias.size(), 3);
  fill_pseudo_random(g.data(), g.size(), 4);  // upstream gradient dL/dout
  auto loss = [&] {
    attnlab::kernels::linear_forward(out.data(), inp.data(), weight.data(), bias.data(), N, C, OC);
    double s = 0;
    for (int i = 0; i < N * OC; ++i) s += out[i] * g[i];
    return s;
  };
  // prefill the gradient buffers: backward must add into them
  std::vector<double> dinp(N * C, 0.25), dweight(OC * C, -0.5), dbias(OC, 2.0);
  attnlab::kernels::linear_backward(dinp.data(), dweight.data(), dbias.data(), g.data(), inp.data(),
                               weight.data(), N, C, OC);
  for (auto& v : dinp) v -= 0.25;
  for (auto& v : dweight) v += 0.5;
  for (auto& v : dbias) v -= 2.0;
  expect_gradient_close("dinp", dinp.data(), numerical_gradient(loss, inp.data(), inp.size()));
  expect_gradient_close("dweight", dweight.data(),
                        numerical_gradient(loss, weight.data(), weight.size()));
  expect_gradient_close("dbias", dbias.data(), numerical_gradient(loss, bias.data(), bias.size()));
}

TEST(Linear, BackwardSkipsNullGradients) {
  const int N = 2, C = 3, OC = 2;
  std::vector<double> inp(N * C), weight(OC * C), g(N * OC), dweight(OC * C, 0.0);
  fill_pseudo_random(inp.data(), inp.size(), 5);
  fill_pseudo_random(weight.data(), weight.size(), 6);
  fill_pseudo_random(g.data(), g.size(), 7);
  attnlab::kernels::linear_backward<double>(nullptr, dweight.data(), nullptr, g.data(), inp.data(),
                                       weight.data(), N, C, OC);
  // dweight[0][0] = sum_n g[n][0] * inp[n][0]
  EXPECT_NEAR(dweight[0], g[0] * inp[0] + g[2] * inp[3], 1e-15);
}

TEST(Linear, RejectsBadDims) {
  float x[4] = {}, w[4] = {}, y[4] = {};
  EXPECT_THROW(attnlab::kernels::linear_forward<float>(y, x, w, nullptr, 0, 2, 2),
               std::invalid_argument);
  EXPECT_THROW(attnlab::kernels::linear_backward<float>(x, w, nullptr, y, x, w, 2, -1, 2),
               std::invalid_argument);
}

// Figures from PyTorch 1.13 (nn.Linear(4, 5) on a (2, 3, 4) input, autograd);
// float32 here within 1e-5 relative (see expect_close_to_torch; in fact the
// results match bit for bit on this machine).
void check_linear_parity(const nlohmann::json& c) {
  const int N = c["N"], C = c["C"], OC = c["OC"];
  const bool has_bias = c.contains("bias");
  auto inp = as_floats(c["inp"]), weight = as_floats(c["weight"]), dout = as_floats(c["dout"]);
  std::vector<float> bias = has_bias ? as_floats(c["bias"]) : std::vector<float>{};
  std::vector<float> out(N * OC), dinp(N * C, 0.f), dweight(OC * C, 0.f), dbias(OC, 0.f);
  attnlab::kernels::linear_forward(out.data(), inp.data(), weight.data(),
                              has_bias ? bias.data() : nullptr, N, C, OC);
  expect_close_to_torch("out", out.data(), as_floats(c["out"]));
  attnlab::kernels::linear_backward(dinp.data(), dweight.data(), has_bias ? dbias.data() : nullptr,
                               dout.data(), inp.data(), weight.data(), N, C, OC);
  expect_close_to_torch("dinp", dinp.data(), as_floats(c["dinp"]));
  expect_close_to_torch("dweight", dweight.data(), as_floats(c["dweight"]));
  if (has_bias) expect_close_to_torch("dbias", dbias.data(), as_floats(c["dbias"]));
}

TEST(Linear, MatchesPyTorch) { check_linear_parity(parity()["linear"]); }

TEST(Linear, MatchesPyTorchWithoutBias) { check_linear_parity(parity()["linear_nobias"]); }

// torch.manual_seed(0); nn.Linear(32, 96); nn.Linear(64, 2): every value bit
// for bit (the two embeddings drawn after them are checked in embedding_test.cpp).
TEST(LinearInit, MatchesPyTorchSeed0) {
  const auto golden = load_golden("kernels/layers_init.json");
  const auto& mods = golden["seed0"]["modules"];
  attnlab::random::Generator gen(0);
  for (int m = 0; m < 2; ++m) {
    const int in = mods[m]["in"], out = mods[m]["out"];
    const std::string name = "Linear(" + std::to_string(in) + "," + std::to_string(out) + ")";
    std::vector<float> w(in * out), b(out);
    attnlab::kernels::linear_init(gen, w.data(), b.data(), in, out);
    expect_bits_equal(name + ".weight", w, as_floats(mods[m]["weight"]));
    expect_bits_equal(name + ".bias", b, as_floats(mods[m]["bias"]));
  }
}

// torch.manual_seed(1); nn.Linear(5, 3, bias=False); nn.Linear(3, 2): the
// first draws no bias, so the second starts right after its 15 weights.
TEST(LinearInit, WithoutBiasDrawsOnlyWeights) {
  const auto golden = load_golden("kernels/layers_init.json");
  const auto& mods = golden["seed1"]["modules"];
  attnlab::random::Generator gen(1);
  std::vector<float> w1(15), w2(6), b2(2);
  attnlab::kernels::linear_init(gen, w1.data(), nullptr, 5, 3);
  attnlab::kernels::linear_init(gen, w2.data(), b2.data(), 3, 2);
  expect_bits_equal("Linear(5,3,bias=False).weight", w1, as_floats(mods[0]["weight"]));
  expect_bits_equal("Linear(3,2).weight", w2, as_floats(mods[1]["weight"]));
  expect_bits_equal("Linear(3,2).bias", b2, as_floats(mods[1]["bias"]));
}

TEST(LinearInit, RejectsBadDims) {
  attnlab::random::Generator gen(0);
  float w[1], b[1];
  EXPECT_THROW(attnlab::kernels::linear_init(gen, w, b, 0, 1), std::invalid_argument);
}

}  // namespace
