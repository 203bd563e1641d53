// Every module the course's models use, through the public door, against
// PyTorch 1.13: the layer goldens of scripts/make_layer_goldens.py
// (data/kernels/layers_parity.json: Linear with and without bias, Embedding,
// LayerNorm, GELU, Dropout) and scripts/make_recurrent_goldens.py
// (data/kernels/recurrent_{rnn,gru,lstm}.json: nn.RNN/GRU/LSTM(32, 64,
// batch_first=True) after torch.manual_seed(0), loss sum(output * R_all)).
// Forward and backward; the recurrent modules also bit for bit at init and in
// PyTorch's default sequence-first layout; dropout in train and eval mode.
#include <gtest/gtest.h>

#include <xtensor/xmanipulation.hpp>

#include "attnlab/attnlab.hpp"
#include "kernels/recurrent_test_util.hpp"
#include "support/layer_parity.hpp"

namespace attnlab::nn {
namespace {

using attnlab::testing::as_floats;
using attnlab::testing::golden_tensor;
using attnlab::testing::load_golden;
using attnlab::testing::layers::expect_bits_equal;
using attnlab::testing::layers::expect_close_to_torch;
using attnlab::testing::layers::parity;

template <std::size_t N>
Tensor<N> tensor(const std::vector<float>& v, const std::array<std::size_t, N>& shape) {
  Tensor<N> t = Tensor<N>::from_shape(shape);
  EXPECT_EQ(t.size(), v.size());
  std::copy(v.begin(), v.end(), t.begin());
  return t;
}

void set(TensorView<2> dst, const std::vector<float>& v) { std::copy(v.begin(), v.end(), dst.data()); }
void set(TensorView<1> dst, const std::vector<float>& v) { std::copy(v.begin(), v.end(), dst.data()); }

TEST(PublicModules, LinearWithAndWithoutBias) {
  for (const char* key : {"linear", "linear_nobias"}) {
    SCOPED_TRACE(key);
    const auto& j = parity()[key];
    const std::size_t N = j["N"], C = j["C"], OC = j["OC"];
    const bool bias = j.contains("bias");
    Generator gen(0);
    Linear fc(LinearOptions(int(C), int(OC)).bias(bias), gen);
    set(fc.weight(), as_floats(j["weight"]));
    if (bias) set(fc.bias(), as_floats(j["bias"]));
    // (N, C) seen as (2, N/2, C): Linear works on the last dimension of any rank
    const Tensor<3> x = tensor<3>(as_floats(j["inp"]), {2, N / 2, C});
    const Tensor<3> y = fc.forward(x);
    EXPECT_EQ(shape_of(y), (std::vector<std::size_t>{2, N / 2, OC}));
    expect_close_to_torch("out", y.data(), as_floats(j["out"]));
    fc.zero_grad();
    const Tensor<3> dx = fc.backward(tensor<3>(as_floats(j["dout"]), {2, N / 2, OC}), x);
    expect_close_to_torch("dinp", dx.data(), as_floats(j["dinp"]));
    const auto p = fc.named_parameters();
    expect_close_to_torch("dweight", p[0].grad, as_floats(j["dweight"]));
    if (bias) expect_close_to_torch("dbias", p[1].grad, as_floats(j["dbias"]));
  }
}

TEST(PublicModules, Embedding) {
  const auto& j = parity()["embedding"];
  const std::size_t N = j["N"], V = j["V"], D = j["D"];
  Generator gen(0);
  Embedding emb(EmbeddingOptions(int(V), int(D)), gen);
  set(emb.weight(), as_floats(j["weight"]));
  xt::xtensor<std::int32_t, 1> ids = xt::xtensor<std::int32_t, 1>::from_shape({N});
  const auto idv = j["ids"].get<std::vector<std::int32_t>>();
  std::copy(idv.begin(), idv.end(), ids.begin());
  const Tensor<2> out = emb.forward(ids);
  expect_close_to_torch("out", out.data(), as_floats(j["out"]));
  emb.backward(tensor<2>(as_floats(j["dout"]), {N, D}), ids);
  expect_close_to_torch("dweight", emb.named_parameters()[0].grad, as_floats(j["dweight"]));
  ids(0) = std::int32_t(V);  // PyTorch: IndexError
  EXPECT_THROW(emb.forward(ids), std::out_of_range);
}

TEST(PublicModules, LayerNorm) {
  const auto& j = parity()["layer_norm"];
  const std::size_t N = j["N"], C = j["C"];
  LayerNorm norm{LayerNormOptions(int(C))};
  expect_bits_equal("initial weight", norm.weight().data(), std::vector<float>(C, 1.0f));
  set(norm.weight(), as_floats(j["weight"]));
  set(norm.bias(), as_floats(j["bias"]));
  const Tensor<2> x = tensor<2>(as_floats(j["inp"]), {N, C});
  expect_close_to_torch("out", norm.forward(x).data(), as_floats(j["out"]));
  const Tensor<2> dx = norm.backward(tensor<2>(as_floats(j["dout"]), {N, C}), x);
  expect_close_to_torch("dinp", dx.data(), as_floats(j["dinp"]));
  expect_close_to_torch("dweight", norm.named_parameters()[0].grad, as_floats(j["dweight"]));
  expect_close_to_torch("dbias", norm.named_parameters()[1].grad, as_floats(j["dbias"]));
}

TEST(PublicModules, Gelu) {
  const auto& j = parity()["gelu"];
  const std::size_t n = j["n"];
  GELU gelu;
  const Tensor<1> x = tensor<1>(as_floats(j["inp"]), {n});
  expect_close_to_torch("out", gelu.forward(x).data(), as_floats(j["out"]));
  expect_close_to_torch("dinp", gelu.backward(tensor<1>(as_floats(j["dout"]), {n}), x).data(),
                        as_floats(j["dinp"]));
}

TEST(PublicModules, DropoutTrainAndEval) {
  const auto& j = parity()["dropout"];
  const std::size_t n = j["n"];
  Generator gen(j["seed"].get<std::uint64_t>());  // PyTorch seeded just before F.dropout
  Dropout drop(j["p"].get<double>(), gen);
  const Tensor<1> x = tensor<1>(as_floats(j["inp"]), {n});
  expect_bits_equal("out", drop.forward(x).data(), as_floats(j["out"]));
  // backward adds into zeros, so a dropped -0.0 comes back +0.0: equal values, not bits
  expect_close_to_torch("dinp", drop.backward(tensor<1>(as_floats(j["dout"]), {n})).data(), as_floats(j["dinp"]));
  drop.eval();
  EXPECT_EQ(drop.forward(x), x);
}

struct RecurrentGolden {
  const char* file;
  RecurrentCell cell;
};

class PublicRecurrent : public ::testing::TestWithParam<RecurrentGolden> {};

TEST_P(PublicRecurrent, InitForwardBackwardInBothLayouts) {
  const auto& j = load_golden(std::string("kernels/") + GetParam().file);
  const int B = j["batch"], T = j["length"], I = j["input_size"], H = j["hidden_size"];
  const std::size_t G = GetParam().cell == RecurrentCell::rnn ? 1 : GetParam().cell == RecurrentCell::gru ? 3 : 4;
  for (bool batch_first : {true, false}) {
    SCOPED_TRACE(batch_first ? "batch_first" : "sequence first");
    Generator gen(0);
    Recurrent m(GetParam().cell, RNNOptions(I, H).batch_first(batch_first), gen);
    const std::size_t GH = G * H;
    expect_bits_equal("weight_ih_l0", m.weight_ih_l0().data(), golden_tensor(j, "weight_ih_l0", GH * I));
    expect_bits_equal("weight_hh_l0", m.weight_hh_l0().data(), golden_tensor(j, "weight_hh_l0", GH * H));
    expect_bits_equal("bias_ih_l0", m.bias_ih_l0().data(), golden_tensor(j, "bias_ih_l0", GH));
    expect_bits_equal("bias_hh_l0", m.bias_hh_l0().data(), golden_tensor(j, "bias_hh_l0", GH));
    const std::size_t b = B, t = T;
    Tensor<3> x = tensor<3>(golden_tensor(j, "input", b * t * I), {b, t, std::size_t(I)});
    Tensor<3> r = tensor<3>(golden_tensor(j, "R_all", b * t * H), {b, t, std::size_t(H)});
    if (!batch_first) {
      x = xt::transpose(x, {1, 0, 2});
      r = xt::transpose(r, {1, 0, 2});
    }
    const RNNOutput out = m.forward(x);
    const Tensor<3> out_bf = batch_first ? out.output : Tensor<3>(xt::transpose(out.output, {1, 0, 2}));
    expect_close_to_torch("output", out_bf.data(), golden_tensor(j, "output", b * t * H));
    for (std::size_t n = 0; n < b; ++n)  // h_n is the last step
      for (int h = 0; h < H; ++h) EXPECT_EQ(out.h_n(0, n, h), out_bf(n, t - 1, h));
    EXPECT_EQ(out.c_n.size(), GetParam().cell == RecurrentCell::lstm ? b * H : 0u);
    Tensor<3> dx = m.backward(r, x);
    if (!batch_first) dx = xt::transpose(dx, {1, 0, 2});
    const auto& g = j["grad_all"];
    expect_close_to_torch("d input", dx.data(), golden_tensor(g, "input", b * t * I));
    const auto p = m.named_parameters();
    const char* names[] = {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"};
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(p[k].name, names[k]);
      expect_close_to_torch(std::string("d ") + names[k], p[k].grad, golden_tensor(g, names[k], p[k].shape.size() == 2 ? p[k].shape[0] * p[k].shape[1] : p[k].shape[0]));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cells, PublicRecurrent,
                         ::testing::Values(RecurrentGolden{"recurrent_rnn.json", RecurrentCell::rnn},
                                           RecurrentGolden{"recurrent_gru.json", RecurrentCell::gru},
                                           RecurrentGolden{"recurrent_lstm.json", RecurrentCell::lstm}),
                         [](const auto& info) { return std::string(info.param.cell == RecurrentCell::rnn ? "rnn" : info.param.cell == RecurrentCell::gru ? "gru" : "lstm"); });

// The LSTM's c_n: c_T = f ⊙ c_{T-1} + i ⊙ g, so with one step from c = 0 it
// is i ⊙ g, and h_n = o ⊙ tanh(c_n) ties it to the output we checked above.
TEST(PublicModules, LstmCellStateIsTheOneBehindHn) {
  Generator gen(3);
  LSTM lstm(LSTMOptions(3, 5).batch_first(true), gen);
  Tensor<3> x = xt::ones<float>({2, 4, 3});
  const RNNOutput out = lstm.forward(x);
  // h_n = o ⊙ tanh(c_n) with o in (0, 1): |h_n| < |tanh(c_n)| elementwise, same sign
  for (std::size_t i = 0; i < out.h_n.size(); ++i) {
    const float th = std::tanh(out.c_n.flat(i));
    EXPECT_LT(std::abs(out.h_n.flat(i)), std::abs(th));
    EXPECT_EQ(std::signbit(out.h_n.flat(i)), std::signbit(th));
  }
}

TEST(PublicModules, ShapesAreCheckedAtTheDoorWithTheirNames) {
  Generator gen(0);
  MultiheadAttention mha(MultiheadAttentionOptions(8, 2).kdim(5), gen);
  const Tensor<3> q = xt::zeros<float>({3, 2, 8}), k = xt::zeros<float>({4, 2, 7}), v = xt::zeros<float>({4, 2, 8});
  try {
    mha.forward(q, k, v);
    FAIL() << "a key of width 7 for kdim 5 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "MultiheadAttention::forward: key has shape (4, 2, 7), expected (S, 2, 5)");
  }
  const Tensor<3> k5 = xt::zeros<float>({4, 2, 5});
  const xt::xtensor<bool, 2> kpm = xt::zeros<bool>({2, 3});
  try {
    mha.forward(q, k5, v, {.key_padding_mask = kpm});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "MultiheadAttention::forward: key_padding_mask has shape (2, 3), expected (2, 4)");
  }
  const xt::xtensor<float, 3> mask3 = xt::zeros<float>({2, 3, 4});  // needs (N·H, L, S) = (4, 3, 4)
  try {
    mha.forward(q, k5, v, {.attn_mask = mask3});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "MultiheadAttention::forward: attn_mask has shape (2, 3, 4), expected (4, 3, 4)");
  }
  EXPECT_THROW(mha.in_proj_weight(), std::logic_error);  // kdim != embed_dim: separate weights
  EXPECT_EQ(mha.k_proj_weight().shape()[1], 5u);
  EXPECT_THROW(MultiheadAttention(MultiheadAttentionOptions(10, 3), gen), std::invalid_argument);
  Linear fc(LinearOptions(4, 2), gen);
  try {
    fc.forward(Tensor<2>(xt::zeros<float>({3, 5})));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Linear::forward: input has shape (3, 5), expected (*, 4)");
  }
}

}  // namespace
}  // namespace attnlab::nn
