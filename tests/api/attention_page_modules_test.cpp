// The attention page's pieces through the public door (attnlab/attnlab.hpp):
// scaled_dot_product_attention against PyTorch 1.13; MultiheadSelfAttention's
// state_dict and init (nn.MultiheadAttention's), and its causal stream;
// TransformerBlock (norm_first = false) against nn.TransformerEncoderLayer
// (data/kernels/post_norm_block.json) in init, eval and training outputs and
// gradients, and both norm_first values streaming; positions; Sequential
// (backward through the chain, a stack of blocks streaming); the encoder
// builder; AdditiveAttention against its PyTorch twin
// (data/kernels/additive_attention.json), one decoder step at a time and all at once.
// Every "step == forward" check uses the page's tolerance (np.allclose with
// atol = 1e-5) and asserts the largest difference.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include <xtensor/xview.hpp>

#include "attnlab/attnlab.hpp"
#include "support/layer_parity.hpp"

namespace attnlab::nn {
namespace {

using attnlab::testing::as_floats;
using attnlab::testing::load_golden;
using attnlab::testing::layers::expect_bits_equal;
using attnlab::testing::layers::expect_close_to_torch;
namespace F = functional;

template <std::size_t N>
Tensor<N> tensor(const std::vector<float>& v, const std::array<std::size_t, N>& shape) {
  Tensor<N> t = Tensor<N>::from_shape(shape);
  EXPECT_EQ(t.size(), v.size());
  std::copy(v.begin(), v.end(), t.begin());
  return t;
}

Tensor<3> randn3(Generator& g, std::size_t a, std::size_t b, std::size_t c) {
  Tensor<3> t = Tensor<3>::from_shape({a, b, c});
  g.normal(t.data(), t.size());
  return t;
}

template <class A, class B>
double max_diff(const A& a, const B& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a.data()[i]) - double(b.data()[i])));
  return worst;
}

template <class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

// ---- scaled_dot_product_attention -------------------------------------------------------------

TEST(ScaledDotProductAttentionDoor, ThePagesExampleAndPyTorch) {
  const Tensor<2> q = {{1.0f, 0.0f}}, k = {{1.0f, 0.0f}, {0.0f, 1.0f}}, v = {{10.0f}, {20.0f}};
  const auto [y, w] = F::scaled_dot_product_attention(q, k, v);
  EXPECT_EQ(shape_of(y), (std::vector<std::size_t>{1, 1}));
  EXPECT_NEAR(y(0, 0), 13.3024, 5e-5);

  // The golden is held by name: a range-for over load_golden(...).at(...)
  // would iterate a temporary freed before the loop (AddressSanitizer).
  const auto golden = load_golden("kernels/sdpa.json");
  for (const auto& c : golden.at("cases")) {
    if (c.at("shape_q").size() != 3) continue;
    SCOPED_TRACE(c.at("name").get<std::string>());
    const auto sq = c.at("shape_q").get<std::vector<std::size_t>>(), sk = c.at("shape_k").get<std::vector<std::size_t>>(),
               sv = c.at("shape_v").get<std::vector<std::size_t>>();
    const Tensor<3> Q = tensor<3>(as_floats(c.at("q")), {sq[0], sq[1], sq[2]});
    const Tensor<3> K = tensor<3>(as_floats(c.at("k")), {sk[0], sk[1], sk[2]});
    const Tensor<3> V = tensor<3>(as_floats(c.at("v")), {sv[0], sv[1], sv[2]});
    xt::xtensor<bool, 2> keep = xt::ones<bool>({sq[1], sk[1]});
    if (c.contains("mask_bool"))
      for (std::size_t i = 0; i < keep.size(); ++i) keep.data()[i] = c.at("mask_bool")[i].get<int>() != 0;
    if (c.contains("mask_float")) continue;  // the kernel test covers float masks
    const auto r = F::scaled_dot_product_attention(Q, K, V, keep, c.value("is_causal", false));
    expect_close_to_torch("output", r.output.data(), as_floats(c.at("out")));
    expect_close_to_torch("weights", r.weights.data(), as_floats(c.at("weights")));
    const Tensor<3> g = tensor<3>(as_floats(c.at("g")), {sq[0], sq[1], sv[2]});
    const Tensor<3> gw = tensor<3>(as_floats(c.at("gw")), {sq[0], sq[1], sk[1]});
    const auto d = F::scaled_dot_product_attention_backward(g, &gw, Q, K, V, r.weights);
    expect_close_to_torch("d_q", d.query.data(), as_floats(c.at("d_q")));
    expect_close_to_torch("d_k", d.key.data(), as_floats(c.at("d_k")));
    expect_close_to_torch("d_v", d.value.data(), as_floats(c.at("d_v")));
  }
}

TEST(ScaledDotProductAttentionDoor, FourDimensionsAndShapeErrors) {
  Generator g(3);
  Tensor<4> q = Tensor<4>::from_shape({2, 3, 4, 8}), k = Tensor<4>::from_shape({2, 3, 5, 8}),
            v = Tensor<4>::from_shape({2, 3, 5, 6});
  for (auto* t : {&q, &k, &v}) g.normal(t->data(), t->size());
  const auto r = F::scaled_dot_product_attention(q, k, v, {}, true);
  EXPECT_EQ(shape_of(r.output), (std::vector<std::size_t>{2, 3, 4, 6}));
  EXPECT_EQ(shape_of(r.weights), (std::vector<std::size_t>{2, 3, 4, 5}));
  EXPECT_EQ(r.weights(1, 2, 0, 1), 0.0f);  // causal: query 0 sees key 0 only
  EXPECT_FLOAT_EQ(r.weights(1, 2, 0, 0), 1.0f);
  const Tensor<3> a = xt::ones<float>({2, 4, 8}), b = xt::ones<float>({2, 5, 7});
  EXPECT_EQ(thrown([&] { F::scaled_dot_product_attention(a, b, b); }),
            "scaled_dot_product_attention: key has shape (2, 5, 7), expected (2, S, 8)");
  const xt::xtensor<bool, 2> bad = xt::ones<bool>({4, 4});
  const Tensor<3> kk = xt::ones<float>({2, 5, 8});
  EXPECT_EQ(thrown([&] { F::scaled_dot_product_attention(a, kk, kk, bad); }),
            "scaled_dot_product_attention: attn_mask has shape (4, 4), expected (4, 5)");
}

// ---- MultiheadSelfAttention -------------------------------------------------------------------

TEST(MultiheadSelfAttentionDoor, IsNnMultiheadAttentionsParametersAndInit) {
  Generator a(0), b(0);
  MultiheadSelfAttention m(MultiheadSelfAttentionOptions(8, 2).bias(false), a);
  MultiheadAttention ref(MultiheadAttentionOptions(8, 2).bias(false), b);
  const auto p = m.named_parameters(), r = ref.named_parameters();
  ASSERT_EQ(p.size(), 2u);  // the page's four projection matrices: W_Q, W_K, W_V packed, and W_O
  EXPECT_EQ(p[0].name, "in_proj_weight");
  EXPECT_EQ(p[0].shape, (std::vector<std::size_t>{24, 8}));
  EXPECT_EQ(p[1].name, "out_proj.weight");
  for (std::size_t i = 0; i < p.size(); ++i)
    EXPECT_EQ(std::memcmp(p[i].value, r[i].value, sizeof(float) * 8 * p[i].shape[0]), 0) << p[i].name;
  EXPECT_EQ(a, b) << "the same number of draws";
  Generator c(0);
  EXPECT_EQ(MultiheadSelfAttention(MultiheadSelfAttentionOptions(8, 2), c).named_parameters().size(), 4u);
  EXPECT_EQ(thrown([&] { MultiheadSelfAttention(MultiheadSelfAttentionOptions(8, 3), c); }),
            "multihead attention: d_model 8 is not divisible by n_heads 3");
}

TEST(MultiheadAttentionDoor, IsCausalEqualsTheTriangularMask) {
  Generator gen(0), data(1);
  MultiheadAttention mha(MultiheadAttentionOptions(8, 2), gen);
  const Tensor<3> x = randn3(data, 5, 2, 8);  // (L, N, E)
  xt::xtensor<bool, 2> triu = xt::zeros<bool>({5, 5});
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = i + 1; j < 5; ++j) triu(i, j) = true;
  const auto a = mha.forward(x, x, x, {.is_causal = true});
  const auto b = mha.forward(x, x, x, {.attn_mask = triu});
  EXPECT_EQ(a.attn_output, b.attn_output);
  EXPECT_EQ(*a.attn_output_weights, *b.attn_output_weights);
  EXPECT_EQ((*a.attn_output_weights)(0, 0, 1), 0.0f);
}

TEST(MultiheadSelfAttentionDoor, StepTTimesEqualsForwardBatchedOrNot) {
  for (int T : {1, 5, 33}) {
    SCOPED_TRACE(T);
    Generator gen(0);
    MultiheadSelfAttention m(MultiheadSelfAttentionOptions(16, 4).causal(true), gen);
    Generator data(1);
    const Tensor<3> x = randn3(data, 3, std::size_t(T), 16);
    const Tensor<3> yf = m.forward(x);
    Cache batched = m.init_cache({.batch = 3, .max_len = T});
    Cache single = m.init_cache({.max_len = T});
    EXPECT_EQ(shape_of(single.keys()), (std::vector<std::size_t>{0, 16}));  // the page: (0, d_model)
    EXPECT_EQ(shape_of(batched.values()), (std::vector<std::size_t>{3, 0, 16}));
    double worst = 0;
    for (int t = 0; t < T; ++t) {
      const Tensor<2> y = m.step(Tensor<2>(xt::view(x, xt::all(), t, xt::all())), batched);
      worst = std::max(worst, max_diff(y, Tensor<2>(xt::view(yf, xt::all(), t, xt::all()))));
      const Tensor<1> y0 = m.step(Tensor<1>(xt::view(x, 1, t, xt::all())), single);
      worst = std::max(worst, max_diff(y0, Tensor<1>(xt::view(yf, 1, t, xt::all()))));
    }
    EXPECT_LE(worst, 1e-5);
    EXPECT_EQ(shape_of(single.keys()), (std::vector<std::size_t>{std::size_t(T), 16}));
    EXPECT_EQ(single.length(), T);
    // the cache holds the projected keys: the forward's k rows for stream 1
    EXPECT_EQ(thrown([&] { m.step(Tensor<1>(xt::zeros<float>({16})), single); }),
              "MultiheadSelfAttention::step: step " + std::to_string(T + 1) + " does not fit the cache's max_len " +
                  std::to_string(T) + "; make the cache with a larger max_len");
  }
}

TEST(MultiheadSelfAttentionDoor, StreamingRefusals) {
  Generator gen(0);
  MultiheadSelfAttention plain(MultiheadSelfAttentionOptions(8, 2), gen);
  EXPECT_THROW(plain.init_cache(), std::logic_error);
  MultiheadSelfAttention m(MultiheadSelfAttentionOptions(8, 2).causal(true), gen);
  Cache c = m.init_cache({.batch = 2, .max_len = 4});
  EXPECT_EQ(thrown([&] { m.step(Tensor<2>(xt::zeros<float>({3, 8})), c); }),
            "MultiheadSelfAttention::step: x_t has shape (3, 8), expected (2, 8)");
  EXPECT_EQ(thrown([&] { m.step(Tensor<1>(xt::zeros<float>({8})), c); }),
            "MultiheadSelfAttention::step: x_t has shape (8,), expected (2, 8)");
  EXPECT_THROW(m.init_cache({.max_len = 0}), std::invalid_argument);
}

// ---- TransformerBlock -------------------------------------------------------------------------

TEST(TransformerBlockDoor, PostNormEqualsTransformerEncoderLayer) {
  const auto golden = load_golden("kernels/post_norm_block.json");
  for (const auto& c : golden.at("cases")) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const int C = c.at("d_model"), H = c.at("nhead"), Fd = c.at("dim_feedforward");
    const std::size_t B = c.at("B"), T = c.at("T");
    Generator gen(0);
    TransformerBlock b(TransformerBlockOptions(C, H, Fd).dropout(c.at("dropout")).causal(c.at("causal")), gen);
    const auto params = b.named_parameters();
    const auto& sd = c.at("init").at("state_dict");
    ASSERT_EQ(params.size(), sd.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      EXPECT_EQ(params[i].name, sd[i].at("name").get<std::string>());
      EXPECT_EQ(params[i].shape, sd[i].at("shape").get<std::vector<std::size_t>>());
      expect_bits_equal(params[i].name, params[i].value, as_floats(sd[i].at("values")));
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto v = as_floats(c.at("state_dict")[i].at("values"));
      std::copy(v.begin(), v.end(), params[i].value);
    }
    const Tensor<3> x = tensor<3>(as_floats(c.at("x")), {B, T, std::size_t(C)});
    b.eval();
    expect_close_to_torch("out_eval", b.forward(x).data(), as_floats(c.at("out_eval")));
    b.train();
    Generator train(golden.at("dropout_seed").get<std::uint64_t>());
    b.set_generator(train);
    const Tensor<3> y = b.forward(x);
    expect_close_to_torch("out_train", y.data(), as_floats(c.at("out_train")));
    b.zero_grad();
    const Tensor<3> dx = b.backward(tensor<3>(as_floats(c.at("g")), {B, T, std::size_t(C)}), x);
    expect_close_to_torch("d_x", dx.data(), as_floats(c.at("d_x")), 2e-5);
    for (const auto& p : b.named_parameters())
      expect_close_to_torch("grad " + p.name, p.grad, as_floats(c.at("grads").at(p.name)), 2e-5);
  }
}

TEST(TransformerBlockDoor, PreNormIsTheCoursesBlock) {
  Generator gen(0);
  TransformerBlock b(TransformerBlockOptions(32, 4, 128).norm_first(true), gen);
  const auto p = b.named_parameters();
  ASSERT_EQ(p.size(), 12u);
  EXPECT_EQ(p[0].name, "norm1.weight");
  EXPECT_EQ(p[2].name, "attn.in_proj_weight");
  EXPECT_EQ(p[8].name, "ff.0.weight");
  EXPECT_EQ(p[10].name, "ff.2.weight");
  EXPECT_EQ(b.store().count(), 12704u);  // the course's script 17
  // the same draws as the course model's block: kernels::pre_norm_block_init after the same seed
  Generator ref(0);
  std::vector<std::vector<float>> w;
  for (const auto& s : kernels::pre_norm_block_param_specs(32, 128)) {
    std::size_t n = 1;
    for (int d : s.shape) n *= std::size_t(d);
    w.emplace_back(n);
  }
  kernels::pre_norm_block_init(ref, {w[0].data(), w[1].data(), w[2].data(), w[3].data(), w[4].data(), w[5].data(), w[6].data(),
                           w[7].data(), w[8].data(), w[9].data(), w[10].data(), w[11].data()},
                     32, 128);
  for (std::size_t i = 0; i < p.size(); ++i) expect_bits_equal(p[i].name, p[i].value, w[i]);
}

TEST(TransformerBlockDoor, BothNormFirstStepEqualsForward) {
  for (bool norm_first : {false, true}) {
    SCOPED_TRACE(norm_first ? "pre-norm" : "post-norm");
    Generator gen(0);
    TransformerBlock b(TransformerBlockOptions(64, 8, 128).norm_first(norm_first).causal(true).dropout(0.1), gen);
    b.eval();  // a stream is inference: no dropout in forward or step
    Generator data(1);
    const Tensor<3> x = randn3(data, 2, 40, 64);
    const Tensor<3> yf = b.forward(x);
    Cache batched = b.init_cache({.batch = 2, .max_len = 40});
    Cache single = b.init_cache({.max_len = 40});
    double worst = 0;
    for (std::size_t t = 0; t < 40; ++t) {
      worst = std::max(worst, max_diff(b.step(Tensor<2>(xt::view(x, xt::all(), t, xt::all())), batched),
                                       Tensor<2>(xt::view(yf, xt::all(), t, xt::all()))));
      worst = std::max(worst, max_diff(b.step(Tensor<1>(xt::view(x, 0, t, xt::all())), single),
                                       Tensor<1>(xt::view(yf, 0, t, xt::all()))));
    }
    std::printf("[ figure ] %s block B=2 T=40 C=64 H=8: max |step - forward| %.2e\n",
                norm_first ? "pre-norm" : "post-norm", worst);
    EXPECT_LE(worst, 1e-5);
    // unbatched forward is the batched one's row
    const Tensor<2> y0 = b.forward(Tensor<2>(xt::view(x, 0, xt::all(), xt::all())));
    EXPECT_LE(max_diff(y0, Tensor<2>(xt::view(yf, 0, xt::all(), xt::all()))), 1e-6);
  }
  Generator gen(0);
  TransformerBlock b(TransformerBlockOptions(8, 2, 16), gen);
  EXPECT_THROW(b.init_cache(), std::logic_error);
  EXPECT_EQ(thrown([&] { b.backward(Tensor<3>(xt::zeros<float>({1, 2, 8})), Tensor<3>(xt::zeros<float>({1, 2, 8}))); }),
            "TransformerBlock::backward: no forward() to go back through");
  EXPECT_EQ(thrown([&] { b.forward(Tensor<3>(xt::zeros<float>({1, 2, 7}))); }),
            "TransformerBlock::forward: x has shape (1, 2, 7), expected (B, T, 8)");
}

// ---- positions --------------------------------------------------------------------------------

TEST(PositionsDoor, AddAndLearnedPositions) {
  const Tensor<2> p = sinusoidal_positions(4, 4);
  EXPECT_NEAR(p(1, 0), 0.8415, 5e-5);
  EXPECT_NEAR(p(1, 1), 0.5403, 5e-5);
  EXPECT_EQ(shape_of(sinusoidal_positions(6, 7)), (std::vector<std::size_t>{6, 7}));
  AddPositions add(16);
  EXPECT_TRUE(add.named_parameters().empty());
  const Tensor<3> x = xt::ones<float>({2, 5, 7});
  const Tensor<3> y = add.forward(x);
  const Tensor<2> table = sinusoidal_positions(5, 7);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 5; ++t)
      for (std::size_t c = 0; c < 7; ++c) ASSERT_EQ(y(b, t, c), 1.0f + table(t, c));
  EXPECT_EQ(thrown([&] { add.forward(Tensor<2>(xt::zeros<float>({17, 4}))); }),
            "AddPositions::forward: a sequence of 17 steps is longer than max_len 16");

  Generator gen(0);
  LearnedPositions m(4, 3, gen);
  const auto params = m.named_parameters();
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].name, "weight");
  const Tensor<2> z = m.forward(Tensor<2>(xt::zeros<float>({2, 3})));
  EXPECT_EQ(shape_of(z), (std::vector<std::size_t>{2, 3}));
  EXPECT_TRUE(std::equal(z.begin(), z.end(), m.weight().data()));  // the page: z == P[:2]
  double sq = 0;
  for (std::size_t i = 0; i < 12; ++i) sq += double(m.weight().data()[i]) * m.weight().data()[i];
  EXPECT_LT(std::sqrt(sq / 12), 0.05);  // std 0.02
  m.zero_grad();
  const Tensor<3> g = xt::ones<float>({3, 2, 3});
  m.backward(g, Tensor<3>(xt::zeros<float>({3, 2, 3})));
  EXPECT_EQ(params[0].grad[0], 3.0f);  // summed over the batch
  EXPECT_EQ(params[0].grad[6], 0.0f);  // row 2 was not used
  EXPECT_EQ(thrown([&] { m.forward(Tensor<2>(xt::zeros<float>({5, 3}))); }),
            "LearnedPositions::forward: a sequence of 5 steps is longer than max_len 4");
  EXPECT_EQ(thrown([&] { m.forward(Tensor<2>(xt::zeros<float>({2, 4}))); }),
            "LearnedPositions::forward: x has shape (2, 4), expected (T, 3)");
}

// ---- Sequential and the encoder ---------------------------------------------------------------

TEST(SequentialDoor, BackwardIsTheChainOfItsModules) {
  Generator a(0), b(0);
  Sequential seq;
  auto& l0 = seq.emplace_back<Linear>(LinearOptions(4, 8), a);
  seq.emplace_back<LearnedPositions>(6, 8, a);
  seq.emplace_back<TransformerBlock>(TransformerBlockOptions(8, 2, 16), a);
  seq.emplace_back<MeanOverTime>(a);
  seq.emplace_back<Linear>(LinearOptions(8, 3), a);
  // the same modules by hand, from the same draws
  Linear m0(LinearOptions(4, 8), b);
  LearnedPositions m1(6, 8, b);
  TransformerBlock m2(TransformerBlockOptions(8, 2, 16), b);
  MeanOverTime m3;
  Linear m4(LinearOptions(8, 3), b);
  EXPECT_EQ(seq.store().count(), m0.store().count() + m1.store().count() + m2.store().count() + m4.store().count());
  const auto names = seq.named_parameters();
  EXPECT_EQ(names[0].name, "0.weight");
  EXPECT_EQ(names[2].name, "1.weight");
  EXPECT_EQ(names[3].name, "2.self_attn.in_proj_weight");
  EXPECT_EQ(names.back().name, "4.bias");
  EXPECT_EQ(l0.named_parameters()[0].value, names[0].value);  // a view into the Sequential's buffer

  Generator data(2);
  const Tensor<3> x = randn3(data, 2, 5, 4);
  const xt::xarray<float> y = seq.forward(x);
  const Tensor<3> h0 = m0.forward(x), h1 = m1.forward(h0), h2 = m2.forward(h1);
  const Tensor<2> h3 = m3.forward(h2), y_ref = m4.forward(h3);
  EXPECT_EQ(max_diff(y, y_ref), 0.0);
  const Tensor<2> g = xt::ones<float>({2, 3});
  seq.zero_grad();
  const xt::xarray<float> dx = seq.backward(g, x);
  const Tensor<3> d_ref = m0.backward(m1.backward(m2.backward(m3.backward(m4.backward(g, h3), h2), h1), h0), x);
  EXPECT_EQ(max_diff(dx, d_ref), 0.0);
  const std::vector<Module*> parts{&m0, &m1, &m2, &m4};
  std::size_t k = 0;
  for (Module* m : parts)
    for (const auto& p : m->named_parameters()) {
      std::size_t n = 1;
      for (auto s : p.shape) n *= s;
      EXPECT_EQ(std::memcmp(names[k].grad, p.grad, n * sizeof(float)), 0) << names[k].name;
      ++k;
    }
  EXPECT_EQ(seq.output_shape({7, 5, 4}), (std::vector<std::size_t>{7, 3}));
  EXPECT_EQ(thrown([&] { seq.backward(g, Tensor<3>(xt::zeros<float>({1, 5, 4}))); }),
            "Sequential::backward: x has shape (1, 5, 4), the last forward's had (2, 5, 4)");
}

TEST(SequentialDoor, AStackOfCausalBlocksStreams) {
  for (bool norm_first : {false, true}) {
    Generator gen(0);
    Sequential stack;
    for (int i = 0; i < 3; ++i)
      stack.emplace_back<TransformerBlock>(TransformerBlockOptions(16, 4, 32).norm_first(norm_first).causal(true), gen);
    stack.eval();
    Generator data(1);
    const Tensor<3> x = randn3(data, 2, 12, 16);
    const xt::xarray<float> yf = stack.forward(x);
    Cache cache = stack.init_cache({.batch = 2, .max_len = 12});
    EXPECT_EQ(cache.layers(), 3u);
    double worst = 0;
    for (std::size_t t = 0; t < 12; ++t) {
      const xt::xarray<float> y = stack.step(xt::xarray<float>(xt::view(x, xt::all(), t, xt::all())), cache);
      worst = std::max(worst, max_diff(y, xt::xarray<float>(xt::view(yf, xt::all(), t, xt::all()))));
    }
    std::printf("[ figure ] stack of 3 %s blocks B=2 T=12 C=16: max |step - forward| %.2e\n",
                norm_first ? "pre-norm" : "post-norm", worst);
    EXPECT_LE(worst, 1e-5);
    EXPECT_THROW(stack.step(xt::xarray<float>(xt::zeros<float>({2, 16})), cache), std::length_error);
  }
  Generator gen(0);
  Sequential mixed;
  mixed.emplace_back<TransformerBlock>(TransformerBlockOptions(8, 2, 16).causal(true), gen);
  mixed.emplace_back<TransformerBlock>(TransformerBlockOptions(8, 2, 16), gen);
  EXPECT_THROW(mixed.init_cache(), std::logic_error);  // a non-causal block cannot stream
}

TEST(EncoderDoor, ThePagesShapesAndAStreamOverPrefixes) {
  Generator gen(0);
  Sequential m = transformer_encoder(4, 8, 2, 16, 1, 3, gen, 16);
  EXPECT_EQ(shape_of(m.forward(xt::ones<float>({5, 4}))), (std::vector<std::size_t>{3}));  // the page's (3,)
  EXPECT_EQ(shape_of(m.forward(xt::ones<float>({6, 5, 4}))), (std::vector<std::size_t>{6, 3}));
  EXPECT_EQ(m.size(), 5u);
  EXPECT_EQ(thrown([&] { m.forward(xt::ones<float>({17, 4})); }),
            "AddPositions::forward: a sequence of 17 steps is longer than max_len 16");

  for (bool learned : {false, true}) {
    Generator g2(0);
    Sequential enc = transformer_encoder(
        TransformerEncoderOptions(4, 16, 4, 32, 3, 3).max_len(20).causal(true).learned_positions(learned), g2);
    enc.eval();
    Generator data(1);
    const Tensor<3> x = randn3(data, 2, 20, 4);
    Cache cache = enc.init_cache({.batch = 2, .max_len = 20});
    Cache single = enc.init_cache({.max_len = 20});
    double worst = 0;
    for (std::size_t t = 0; t < 20; ++t) {
      const xt::xarray<float> y = enc.step(xt::xarray<float>(xt::view(x, xt::all(), t, xt::all())), cache);
      const xt::xarray<float> prefix = xt::view(x, xt::all(), xt::range(0, t + 1), xt::all());
      const xt::xarray<float> want = enc.forward(prefix);  // (2, 3): the output on the first t + 1 steps
      worst = std::max(worst, max_diff(y, want));
      const xt::xarray<float> y0 = enc.step(xt::xarray<float>(xt::view(x, 0, t, xt::all())), single);
      worst = std::max(worst, max_diff(y0, xt::xarray<float>(xt::view(want, 0, xt::all()))));
    }
    std::printf("[ figure ] causal encoder depth 3 C=16 T=20 (%s positions): max |step - forward(prefix)| %.2e\n",
                learned ? "learned" : "sinusoidal", worst);
    EXPECT_LE(worst, 1e-5);
  }
  EXPECT_EQ(thrown([&] { transformer_encoder(4, 8, 3, 16, 1, 3, gen); }),
            "transformer_encoder: d_model 8 is not divisible by n_heads 3");
}

// ---- AdditiveAttention ------------------------------------------------------------------------

TEST(AdditiveAttentionDoor, EqualsItsPyTorchTwin) {
  const auto golden = load_golden("kernels/additive_attention.json");  // held: see the sdpa test
  for (const auto& c : golden.at("cases")) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const int Dq = c.at("query_size"), Dk = c.at("key_size"), A = c.at("hidden_size");
    const std::size_t B = c.at("B"), T = c.at("T"), S = c.at("S"), Dv = c.at("value_size");
    Generator gen(0);
    AdditiveAttention att(AdditiveAttentionOptions(Dq, Dk, A), gen);
    const auto params = att.named_parameters();
    const auto& sd = c.at("init").at("state_dict");
    ASSERT_EQ(params.size(), sd.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      EXPECT_EQ(params[i].name, sd[i].at("name").get<std::string>());
      expect_bits_equal(params[i].name, params[i].value, as_floats(sd[i].at("values")));
    }
    std::int64_t next = 0;
    gen.randint(&next, 1, 0, std::int64_t(1) << 31);
    EXPECT_EQ(next, c.at("init").at("next_word_mod_2_31").get<std::int64_t>());

    const Tensor<3> query = tensor<3>(as_floats(c.at("query")), {B, T, std::size_t(Dq)});
    const Tensor<3> keys = tensor<3>(as_floats(c.at("keys")), {B, S, std::size_t(Dk)});
    const Tensor<3> values = tensor<3>(as_floats(c.at("values")), {B, S, Dv});
    xt::xtensor<bool, 2> padding = xt::zeros<bool>({B, S});
    for (std::size_t i = 0; i < padding.size(); ++i) padding.data()[i] = c.at("key_padding_mask")[i].get<int>() != 0;
    const Tensor<3> g = tensor<3>(as_floats(c.at("g")), {B, T, Dv});
    const Tensor<3> gw = tensor<3>(as_floats(c.at("gw")), {B, T, S});

    const Tensor<3> pk = att.project_keys(keys);  // once per sentence
    expect_close_to_torch("projected_keys", pk.data(), as_floats(c.at("projected_keys")));
    // all queries at once
    const auto all = att.forward(query, pk, values, {.key_padding_mask = padding});
    expect_close_to_torch("context", all.context.data(), as_floats(c.at("context")));
    expect_close_to_torch("weights", all.weights.data(), as_floats(c.at("weights")));
    att.zero_grad();
    const auto d = att.backward(g, &gw, query, pk, values, all.weights);
    Tensor<3> d_keys = att.project_keys_backward(d.projected_keys, keys);
    if (c.at("values_are_keys").get<bool>()) d_keys += d.values;  // one leaf, two uses
    expect_close_to_torch("d_query", d.query.data(), as_floats(c.at("d_query")));
    expect_close_to_torch("d_keys", d_keys.data(), as_floats(c.at("d_keys")));
    if (c.contains("d_values")) expect_close_to_torch("d_values", d.values.data(), as_floats(c.at("d_values")));
    for (const auto& p : att.named_parameters())
      expect_close_to_torch("grad " + p.name, p.grad, as_floats(c.at("grads").at(p.name)));

    // a decoder: one step at a time with the keys projected once, gradients summed over the steps
    std::vector<float> grads_all;
    for (const auto& p : att.named_parameters()) grads_all.insert(grads_all.end(), p.grad, p.grad + p.shape[0] * p.shape[1]);
    att.zero_grad();
    Tensor<3> d_pk = xt::zeros<float>(pk.shape());
    for (std::size_t i = 0; i < T; ++i) {
      const Tensor<2> q_i = xt::view(query, xt::all(), i, xt::all());
      const auto step = att.forward(q_i, pk, values, {.key_padding_mask = padding});
      EXPECT_LE(max_diff(step.context, Tensor<2>(xt::view(all.context, xt::all(), i, xt::all()))), 0.0);
      EXPECT_LE(max_diff(step.weights, Tensor<2>(xt::view(all.weights, xt::all(), i, xt::all()))), 0.0);
      const Tensor<2> g_i = xt::view(g, xt::all(), i, xt::all()), gw_i = xt::view(gw, xt::all(), i, xt::all());
      const auto ds = att.backward(g_i, &gw_i, q_i, pk, values, step.weights);
      d_pk += ds.projected_keys;
      const Tensor<2> d_query_i = xt::view(d.query, xt::all(), i, xt::all());
      EXPECT_LE(max_diff(ds.query, d_query_i), 1e-6);
    }
    att.project_keys_backward(d_pk, keys);
    std::vector<float> grads_steps;
    for (const auto& p : att.named_parameters()) grads_steps.insert(grads_steps.end(), p.grad, p.grad + p.shape[0] * p.shape[1]);
    expect_close_to_torch("parameter gradients, step by step", grads_steps.data(), grads_all);
  }
  Generator gen(0);
  AdditiveAttention att(AdditiveAttentionOptions(3, 4, 5), gen);
  EXPECT_EQ(thrown([&] { att.project_keys(Tensor<3>(xt::zeros<float>({2, 6, 3}))); }),
            "AdditiveAttention::project_keys: keys has shape (2, 6, 3), expected (B, S, 4)");
  const Tensor<3> pk = xt::zeros<float>({2, 6, 5}), v = xt::zeros<float>({2, 6, 4});
  EXPECT_EQ(thrown([&] { att.forward(Tensor<2>(xt::zeros<float>({3, 3})), pk, v); }),
            "AdditiveAttention::forward: projected_keys has shape (2, 6, 5), expected (3, S, 5)");
}

}  // namespace
}  // namespace attnlab::nn
