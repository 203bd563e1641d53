// The embedding folded into a recurrent layer's input projection
// (nn/embedded_input.hpp), for nn.RNN, nn.GRU and nn.LSTM: the forward pass is
// the dense pass's bytes, the backward pass its gradients to rounding, and
// finite differences hold for the embedding table and weight_ih.
#include "kernels/embedded_input.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/embedding.hpp"
#include "kernels/gru.hpp"
#include "kernels/lstm.hpp"
#include "kernels/rnn.hpp"
#include "recurrent_test_util.hpp"
#include "tensor/sgemm_tiles.hpp"

namespace attnlab::kernels {
namespace {

// Whether the float input projection (B·T or V rows, GH columns, depth I)
// runs on attnlab's sgemm tiles, whose sums do not depend on the row count
// (tensor/sgemm_tiles.hpp): then the folded forward is the dense one's bytes.
bool forward_is_bitwise(int GH, int I) {
  return tensor::detail::sgemm_tiles_take(false, true, 1, GH, I, 1.0f, 1.0f);
}

// One cell's dense entry points (the harness's) and its embedded ones.
template <class Real>
struct EmbeddedCell {
  testing::RecurrentCell<Real> dense;
  void (*forward)(Real*, Real*, const EmbeddedInput<Real>&, const Real*, const Real*, const Real*, const Real*, int,
                  int, int, int);
  void (*backward)(Real*, Real*, Real*, Real*, Real*, Real*, const Real*, const Real*, const EmbeddedInput<Real>&,
                   const Real*, const Real*, int, int, int, int);
};

template <class Real>
std::vector<EmbeddedCell<Real>> cells() {
  return {
      {{"rnn", kRnnGates, &rnn_cache_size, &rnn_scratch_size, &rnn_forward<Real>, &rnn_backward<Real>, &rnn_init},
       &rnn_forward_embedded<Real>, &rnn_backward_embedded<Real>},
      {{"gru", kGruGates, &gru_cache_size, &gru_scratch_size, &gru_forward<Real>, &gru_backward<Real>, &gru_init},
       &gru_forward_embedded<Real>, &gru_backward_embedded<Real>},
      {{"lstm", kLstmGates, &lstm_cache_size, &lstm_scratch_size, &lstm_forward<Real>, &lstm_backward<Real>,
        &lstm_init},
       &lstm_forward_embedded<Real>, &lstm_backward_embedded<Real>},
  };
}

// A layer with weights of order 1, an embedding table (V, I), and ids that
// use every token and repeat some (the grouping the backward pass does).
template <class Real>
struct Fixture {
  int B = 5, T = 6, I = 8, H = 16, V = 7;
  testing::RecurrentLayer<Real> layer;
  std::vector<Real> emb, dout;
  std::vector<std::int32_t> ids;
  std::vector<Real> table;

  explicit Fixture(const EmbeddedCell<Real>& c) : layer(c.dense, B, T, I, H) {
    std::vector<double> tmp(layer.weight_ih.size() + layer.weight_hh.size() + 2 * layer.bias_ih.size() +
                            static_cast<std::size_t>(V) * I + layer.out.size());
    testing::fill_pseudo_random(tmp.data(), tmp.size(), 11, 0.8);
    auto next = tmp.begin();
    auto fill = [&next](std::vector<Real>& v) {
      for (Real& x : v) x = static_cast<Real>(*next++);
    };
    emb.resize(static_cast<std::size_t>(V) * I);
    dout.resize(layer.out.size());
    fill(layer.weight_ih), fill(layer.weight_hh), fill(layer.bias_ih), fill(layer.bias_hh), fill(emb), fill(dout);
    for (int r = 0; r < B * T; ++r) ids.push_back((r * 5 + r / 3) % V);
    table.assign(embedded_table_size(V, c.dense.G, H), Real(0));
  }
  EmbeddedInput<Real> input() { return {.ids = ids.data(), .weight = emb.data(), .vocab = V, .table = table.data()}; }
};

TEST(EmbeddedInputTest, ForwardIsTheDensePassBitForBit) {
  for (const auto& c : cells<float>()) {
    SCOPED_TRACE(c.dense.name);
    Fixture<float> s(c);
    if (!forward_is_bitwise(c.dense.G * s.H, s.I)) GTEST_SKIP() << "no AVX2/FMA: OpenBLAS takes the projection";
    std::vector<float> x(static_cast<std::size_t>(s.B) * s.T * s.I);
    embedding_forward(x.data(), s.ids.data(), s.emb.data(), s.B * s.T, s.V, s.I);
    testing::RecurrentLayer<float> dense = s.layer;
    dense.forward(x.data());

    testing::RecurrentLayer<float>& l = s.layer;
    c.forward(l.out.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(), l.bias_ih.data(),
              l.bias_hh.data(), s.B, s.T, s.I, s.H);
    EXPECT_EQ(l.out, dense.out);
    EXPECT_EQ(l.cache, dense.cache);  // what the backward pass reads, too
    // the table is emb · W_ih^T + biases, row by row: row ids[0] is xg's first row
    EXPECT_NE(s.table, std::vector<float>(s.table.size(), 0.0f));
  }
}

// Every gradient against the dense pass then embedding_backward: the same
// sums, grouped by token, so equal to rounding (double: 1e-12; float: 1e-5
// relative to the largest entry).
template <class Real>
void expect_backward_matches_dense(double tol) {
  for (const auto& c : cells<Real>()) {
    SCOPED_TRACE(std::string(c.dense.name) + (sizeof(Real) == 4 ? " float" : " double"));
    Fixture<Real> s(c);
    const std::size_t n = static_cast<std::size_t>(s.B) * s.T;
    std::vector<Real> x(n * s.I), dx(n * s.I, Real(0)), demb_dense(s.emb.size(), Real(0));
    embedding_forward(x.data(), s.ids.data(), s.emb.data(), s.B * s.T, s.V, s.I);
    testing::RecurrentLayer<Real> dense = s.layer;
    dense.forward(x.data());
    dense.backward(dx.data(), s.dout.data(), x.data());
    embedding_backward(demb_dense.data(), dx.data(), s.ids.data(), s.B * s.T, s.V, s.I);

    testing::RecurrentLayer<Real>& l = s.layer;
    std::vector<Real> demb(s.emb.size(), Real(0));
    c.forward(l.out.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(), l.bias_ih.data(),
              l.bias_hh.data(), s.B, s.T, s.I, s.H);
    c.backward(demb.data(), l.dweight_ih.data(), l.dweight_hh.data(), l.dbias_ih.data(), l.dbias_hh.data(),
               l.scratch.data(), s.dout.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(),
               s.B, s.T, s.I, s.H);
    auto expect_close = [tol](const char* what, const std::vector<Real>& got, const std::vector<Real>& want) {
      double scale = 0;
      for (Real w : want) scale = std::max(scale, std::abs(static_cast<double>(w)));
      ASSERT_GT(scale, 0.1) << what;  // a gradient that is really there
      for (std::size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], tol * scale) << what << " " << k;
    };
    expect_close("demb", demb, demb_dense);
    expect_close("dweight_ih", l.dweight_ih, dense.dweight_ih);
    // The recurrent side is the dense pass's own code on the same cache: bit
    // for bit where the forward is (floats on the sgemm tiles); OpenBLAS's
    // dgemm may round V rows differently from B·T.
    if (std::is_same_v<Real, float> && forward_is_bitwise(c.dense.G * s.H, s.I)) {
      EXPECT_EQ(l.dweight_hh, dense.dweight_hh);
      EXPECT_EQ(l.dbias_ih, dense.dbias_ih);
      EXPECT_EQ(l.dbias_hh, dense.dbias_hh);
    } else {
      expect_close("dweight_hh", l.dweight_hh, dense.dweight_hh);
      expect_close("dbias_ih", l.dbias_ih, dense.dbias_ih);
    }
  }
}

TEST(EmbeddedInputTest, BackwardMatchesTheDensePassDouble) { expect_backward_matches_dense<double>(1e-12); }
TEST(EmbeddedInputTest, BackwardMatchesTheDensePassFloat) { expect_backward_matches_dense<float>(1e-5); }

// Finite differences in double of the embedding table's and weight_ih's
// gradients, loss = Σ out ⊙ dout.
TEST(EmbeddedInputTest, GradientsMatchFiniteDifferences) {
  for (const auto& c : cells<double>()) {
    SCOPED_TRACE(c.dense.name);
    Fixture<double> s(c);
    testing::RecurrentLayer<double>& l = s.layer;
    auto loss = [&]() {
      c.forward(l.out.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(), l.bias_ih.data(),
                l.bias_hh.data(), s.B, s.T, s.I, s.H);
      double sum = 0;
      for (std::size_t k = 0; k < l.out.size(); ++k) sum += l.out[k] * s.dout[k];
      return sum;
    };
    std::vector<double> demb(s.emb.size(), 0.0);
    loss();
    c.backward(demb.data(), l.dweight_ih.data(), l.dweight_hh.data(), l.dbias_ih.data(), l.dbias_hh.data(),
               l.scratch.data(), s.dout.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(),
               s.B, s.T, s.I, s.H);
    const std::vector<double> dweight_ih = l.dweight_ih;
    testing::expect_gradient_close("demb", demb.data(), testing::numerical_gradient(loss, s.emb.data(), s.emb.size()),
                                   1e-7);
    testing::expect_gradient_close("dweight_ih", dweight_ih.data(),
                                   testing::numerical_gradient(loss, l.weight_ih.data(), l.weight_ih.size()), 1e-7);
  }
}

// Gradients add, and a null target skips only itself.
TEST(EmbeddedInputTest, BackwardAddsAndSkipsNullTargets) {
  const auto c = cells<double>()[2];
  Fixture<double> s(c);
  testing::RecurrentLayer<double>& l = s.layer;
  c.forward(l.out.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(), l.bias_ih.data(),
            l.bias_hh.data(), s.B, s.T, s.I, s.H);
  std::vector<double> demb(s.emb.size(), 0.0);
  auto backward = [&](double* de, double* dw) {
    c.backward(de, dw, l.dweight_hh.data(), l.dbias_ih.data(), l.dbias_hh.data(), l.scratch.data(), s.dout.data(),
               l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(), s.B, s.T, s.I, s.H);
  };
  backward(demb.data(), l.dweight_ih.data());
  const std::vector<double> demb_once = demb, dw_once = l.dweight_ih;
  backward(demb.data(), nullptr);
  backward(nullptr, l.dweight_ih.data());
  for (std::size_t k = 0; k < demb.size(); ++k) ASSERT_NEAR(demb[k], 2 * demb_once[k], 1e-12) << k;
  for (std::size_t k = 0; k < dw_once.size(); ++k) ASSERT_NEAR(l.dweight_ih[k], 2 * dw_once[k], 1e-12) << k;
}

// An id outside [0, V) is PyTorch's IndexError, raised before out is written.
TEST(EmbeddedInputTest, AnIdOutsideTheTableThrowsBeforeWriting) {
  const auto c = cells<float>()[2];
  Fixture<float> s(c);
  s.ids[13] = s.V;
  testing::RecurrentLayer<float>& l = s.layer;
  std::fill(l.out.begin(), l.out.end(), 7.0f);
  try {
    c.forward(l.out.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(), l.bias_ih.data(),
              l.bias_hh.data(), s.B, s.T, s.I, s.H);
    FAIL() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("lstm_forward_embedded: id 7 at position 13 is outside [0, 7)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(l.out, std::vector<float>(l.out.size(), 7.0f));
  // backward: refused before any gradient is added to, the recurrent ones included
  s.ids[13] = 0;
  c.forward(l.out.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(), l.bias_ih.data(),
            l.bias_hh.data(), s.B, s.T, s.I, s.H);
  s.ids[13] = -1;
  std::vector<float> demb(s.emb.size(), 0.0f);
  try {
    c.backward(demb.data(), l.dweight_ih.data(), l.dweight_hh.data(), l.dbias_ih.data(), l.dbias_hh.data(),
               l.scratch.data(), s.dout.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(),
               s.B, s.T, s.I, s.H);
    FAIL() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("lstm_backward_embedded: id -1 at position 13"), std::string::npos)
        << e.what();
  }
  for (const auto* g : {&demb, &l.dweight_ih, &l.dweight_hh, &l.dbias_ih, &l.dbias_hh})
    EXPECT_EQ(*g, std::vector<float>(g->size(), 0.0f));
  EXPECT_THROW(c.forward(l.out.data(), l.cache.data(), s.input(), l.weight_ih.data(), l.weight_hh.data(),
                         l.bias_ih.data(), l.bias_hh.data(), s.B, s.T, 0, s.H),
               std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::kernels
