// Shared by rnn_test.cpp, gru_test.cpp and lstm_test.cpp: one harness that
// runs any of the three cells, a finite-difference check of every gradient,
// and the PyTorch parity check against data/kernels/recurrent_<cell>.json.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/recurrent_common.hpp"
#include "random/generator.hpp"
#include "support/golden.hpp"
#include "support/gradcheck.hpp"
#include "support/layer_parity.hpp"

namespace attnlab::testing {

/// The entry points of one cell (rnn, gru or lstm) for one precision.
template <class Real>
struct RecurrentCell {
  const char* name;
  int G;  // gate multiplier: 1, 3, 4
  std::size_t (*cache_size)(int B, int T, int H);
  std::size_t (*scratch_size)(int B, int T, int H);
  void (*forward)(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                  const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                  int I, int H);
  void (*backward)(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih,
                   Real* dbias_hh, Real* scratch, const Real* dout, const Real* cache,
                   const Real* inp, const Real* weight_ih, const Real* weight_hh, int B, int T,
                   int I, int H);
  void (*init)(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
               float* bias_hh, int I, int H);
};

/// One layer with its parameters, gradients and buffers, sized for (B, T, I, H).
template <class Real>
struct RecurrentLayer {
  RecurrentCell<Real> cell;
  int B, T, I, H;
  std::vector<Real> weight_ih, weight_hh, bias_ih, bias_hh;      // (G·H, I), (G·H, H), (G·H) ×2
  std::vector<Real> dweight_ih, dweight_hh, dbias_ih, dbias_hh;  // same shapes
  std::vector<Real> out, cache, scratch;                         // (B, T, H), sized by the cell

  RecurrentLayer(RecurrentCell<Real> c, int B_, int T_, int I_, int H_)
      : cell(c), B(B_), T(T_), I(I_), H(H_) {
    const std::size_t GH = static_cast<std::size_t>(c.G) * H;
    weight_ih.assign(GH * I, 0);
    weight_hh.assign(GH * H, 0);
    bias_ih.assign(GH, 0);
    bias_hh.assign(GH, 0);
    zero_grad();
    out.assign(static_cast<std::size_t>(B) * T * H, 0);
    cache.assign(c.cache_size(B, T, H), 0);
    scratch.assign(c.scratch_size(B, T, H), 0);
  }
  void zero_grad() {
    dweight_ih.assign(weight_ih.size(), 0);
    dweight_hh.assign(weight_hh.size(), 0);
    dbias_ih.assign(bias_ih.size(), 0);
    dbias_hh.assign(bias_hh.size(), 0);
  }
  void forward(const Real* inp) {
    cell.forward(out.data(), cache.data(), inp, weight_ih.data(), weight_hh.data(),
                 bias_ih.data(), bias_hh.data(), B, T, I, H);
  }
  void backward(Real* dinp, const Real* dout, const Real* inp) {
    cell.backward(dinp, dweight_ih.data(), dweight_hh.data(), dbias_ih.data(), dbias_hh.data(),
                  scratch.data(), dout, cache.data(), inp, weight_ih.data(), weight_hh.data(), B,
                  T, I, H);
  }
};

/// Finite differences in double of every input and parameter gradient, with
/// a gradient on every step's output: loss = Σ out ⊙ R, R (B, T, H) fixed, so
/// dout = R.
inline void check_recurrent_gradients(RecurrentCell<double> cell, int B, int T, int I, int H) {
  SCOPED_TRACE(std::string(cell.name) + " B=" + std::to_string(B) + " T=" + std::to_string(T) +
               " I=" + std::to_string(I) + " H=" + std::to_string(H));
  RecurrentLayer<double> layer(cell, B, T, I, H);
  std::vector<double> x(static_cast<std::size_t>(B) * T * I);
  std::vector<double> R(layer.out.size());
  // weights of order 1 keep the gates away from saturation, where the
  // gradients would be too small to test anything
  fill_pseudo_random(x.data(), x.size(), 1, 1.0);
  fill_pseudo_random(R.data(), R.size(), 2, 1.0);
  fill_pseudo_random(layer.weight_ih.data(), layer.weight_ih.size(), 3, 0.8);
  fill_pseudo_random(layer.weight_hh.data(), layer.weight_hh.size(), 4, 0.8);
  fill_pseudo_random(layer.bias_ih.data(), layer.bias_ih.size(), 5, 0.5);
  fill_pseudo_random(layer.bias_hh.data(), layer.bias_hh.size(), 6, 0.5);

  auto loss = [&]() {
    layer.forward(x.data());
    double s = 0;
    for (std::size_t k = 0; k < R.size(); ++k) s += layer.out[k] * R[k];
    return s;
  };

  std::vector<double> dx(x.size(), 0.0);
  loss();
  layer.backward(dx.data(), R.data(), x.data());
  const RecurrentLayer<double> analytic = layer;  // gradients of one backward
  const std::vector<double> dx_once = dx;

  expect_gradient_close("dinp", dx_once.data(), numerical_gradient(loss, x.data(), x.size()), 1e-7);
  expect_gradient_close("dweight_ih", analytic.dweight_ih.data(),
                        numerical_gradient(loss, layer.weight_ih.data(), layer.weight_ih.size()),
                        1e-7);
  expect_gradient_close("dweight_hh", analytic.dweight_hh.data(),
                        numerical_gradient(loss, layer.weight_hh.data(), layer.weight_hh.size()),
                        1e-7);
  expect_gradient_close("dbias_ih", analytic.dbias_ih.data(),
                        numerical_gradient(loss, layer.bias_ih.data(), layer.bias_ih.size()), 1e-7);
  expect_gradient_close("dbias_hh", analytic.dbias_hh.data(),
                        numerical_gradient(loss, layer.bias_hh.data(), layer.bias_hh.size()), 1e-7);

  // Backward adds: a second call without zeroing doubles every gradient, and
  // a null dinp skips the input gradient without changing the others.
  loss();
  layer.backward(dx.data(), R.data(), x.data());
  layer.backward(nullptr, R.data(), x.data());
  for (std::size_t k = 0; k < dx.size(); ++k) ASSERT_NEAR(dx[k], 2 * dx_once[k], 1e-12) << k;
  for (std::size_t k = 0; k < layer.dweight_ih.size(); ++k)
    ASSERT_NEAR(layer.dweight_ih[k], 3 * analytic.dweight_ih[k], 1e-12) << k;
  for (std::size_t k = 0; k < layer.dweight_hh.size(); ++k)
    ASSERT_NEAR(layer.dweight_hh[k], 3 * analytic.dweight_hh[k], 1e-12) << k;
  for (std::size_t k = 0; k < layer.dbias_hh.size(); ++k) {
    ASSERT_NEAR(layer.dbias_ih[k], 3 * analytic.dbias_ih[k], 1e-12) << k;
    ASSERT_NEAR(layer.dbias_hh[k], 3 * analytic.dbias_hh[k], 1e-12) << k;
  }
}

/// The cache and scratch may start anywhere: blocks inside are aligned
/// relative to the buffer, so forward and backward give bit-identical results
/// at every offset, and a buffer of exactly the documented size suffices
/// (AddressSanitizer checks that at the end of each vector). B·H = 21 is not
/// a multiple of 16, the case with padding between blocks.
inline void check_any_buffer_offset(RecurrentCell<float> cell) {
  const int B = 3, T = 4, I = 5, H = 7;
  RecurrentLayer<float> ref(cell, B, T, I, H);
  std::vector<double> tmp(ref.weight_ih.size() + ref.weight_hh.size() + 2 * ref.bias_ih.size() +
                          static_cast<std::size_t>(B) * T * (I + H));
  fill_pseudo_random(tmp.data(), tmp.size(), 7, 0.9);
  auto next = tmp.begin();
  auto fill = [&next](std::vector<float>& v) {
    for (float& x : v) x = static_cast<float>(*next++);
  };
  std::vector<float> x(static_cast<std::size_t>(B) * T * I), dout(ref.out.size());
  fill(ref.weight_ih), fill(ref.weight_hh), fill(ref.bias_ih), fill(ref.bias_hh), fill(x), fill(dout);
  std::vector<float> dx_ref(x.size(), 0.0f);
  ref.forward(x.data());
  ref.backward(dx_ref.data(), dout.data(), x.data());

  for (std::size_t offset = 1; offset < 16; ++offset) {
    SCOPED_TRACE(std::string(cell.name) + " buffer offset " + std::to_string(offset));
    RecurrentLayer<float> layer = ref;
    layer.zero_grad();
    // exact-size buffers starting `offset` floats past a fresh allocation
    std::vector<float> cache_mem(cell.cache_size(B, T, H) + offset);
    std::vector<float> scratch_mem(cell.scratch_size(B, T, H) + offset);
    float* cache = cache_mem.data() + offset;
    float* scratch = scratch_mem.data() + offset;
    std::vector<float> dx(x.size(), 0.0f);
    cell.forward(layer.out.data(), cache, x.data(), layer.weight_ih.data(), layer.weight_hh.data(),
                 layer.bias_ih.data(), layer.bias_hh.data(), B, T, I, H);
    cell.backward(dx.data(), layer.dweight_ih.data(), layer.dweight_hh.data(),
                  layer.dbias_ih.data(), layer.dbias_hh.data(), scratch, dout.data(), cache,
                  x.data(), layer.weight_ih.data(), layer.weight_hh.data(), B, T, I, H);
    EXPECT_EQ(layer.out, ref.out);
    EXPECT_EQ(dx, dx_ref);
    EXPECT_EQ(layer.dweight_ih, ref.dweight_ih);
    EXPECT_EQ(layer.dweight_hh, ref.dweight_hh);
    EXPECT_EQ(layer.dbias_ih, ref.dbias_ih);
    EXPECT_EQ(layer.dbias_hh, ref.dbias_hh);
  }
}

/// Decodes base64 (RFC 4648, with padding) into bytes.
inline std::vector<std::uint8_t> decode_base64(const std::string& s) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<std::uint8_t> bytes;
  bytes.reserve(s.size() / 4 * 3);
  unsigned acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    const int v = value(c);
    if (v < 0) throw std::runtime_error("decode_base64: bad character");
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<std::uint8_t>((acc >> bits) & 0xFF));
    }
  }
  return bytes;
}

/// A tensor of a recurrent golden file: {"shape": [...], "f32le_base64": "..."},
/// the raw little-endian float32 bytes (bit-exact, and a third the size of
/// decimal text: the three files stay under 1 MB together).
inline std::vector<float> golden_tensor(const nlohmann::json& j, const std::string& key,
                                        std::size_t expected_size) {
  const auto& t = j.at(key);
  std::size_t n = 1;
  for (const auto& d : t.at("shape")) n *= d.get<std::size_t>();
  const std::vector<std::uint8_t> bytes = decode_base64(t.at("f32le_base64").get<std::string>());
  if (n != expected_size || bytes.size() != 4 * n)
    throw std::runtime_error("golden tensor " + key + ": expected " +
                             std::to_string(expected_size) + " floats, shape says " +
                             std::to_string(n) + ", data has " + std::to_string(bytes.size() / 4));
  std::vector<float> v(n);
  std::memcpy(v.data(), bytes.data(), bytes.size());  // x86-64 is little-endian
  return v;
}

/// |ours - torch| <= rel · max|torch| over the tensor, for every element: a
/// tolerance relative to the tensor's scale. An elementwise relative bound
/// cannot hold in float32 for values that are sums nearly cancelling: running
/// the double instantiation on the same inputs as a reference, PyTorch's own
/// float32 figures are up to 3.4e-7 of the tensor maximum away from it (up to
/// 1.5e-5 of the value itself for values above 1 % of the maximum), and ours
/// up to 5.5e-7; ours and PyTorch's differ by at most 5.9e-7 of the maximum
/// (LSTM input gradient), so 1e-5 leaves a margin of 17. A NaN or infinity
/// on either side fails.
inline void expect_close_to_torch(const std::string& name, const float* ours,
                                  const std::vector<float>& torch, double rel = 1e-5) {
  double scale = 0;
  for (float v : torch) scale = std::max(scale, std::abs(static_cast<double>(v)));
  const double bound = rel * scale;
  for (std::size_t k = 0; k < torch.size(); ++k) {
    ASSERT_TRUE(std::isfinite(ours[k]) && std::isfinite(torch[k]))
        << name << "[" << k << "]: ours " << ours[k] << " torch " << torch[k];
    const double err = std::abs(static_cast<double>(ours[k]) - torch[k]);
    ASSERT_LE(err, bound) << name << "[" << k << "]: ours " << ours[k] << " torch " << torch[k]
                          << " (max |torch| " << scale << ")";
  }
}

/// PyTorch parity against data/kernels/recurrent_<cell>.json (written by
/// scripts/make_recurrent_goldens.py with PyTorch 1.13): forward output and
/// every gradient for two losses, Σ out[:, T-1, :] ⊙ R_last and Σ out ⊙ R_all.
inline void check_recurrent_parity(RecurrentCell<float> cell) {
  const nlohmann::json j = load_golden(std::string("kernels/recurrent_") + cell.name + ".json");
  const int B = j.at("batch"), T = j.at("length"), I = j.at("input_size"), H = j.at("hidden_size");
  RecurrentLayer<float> layer(cell, B, T, I, H);
  const std::size_t GH = static_cast<std::size_t>(cell.G) * H;
  layer.weight_ih = golden_tensor(j, "weight_ih_l0", GH * I);
  layer.weight_hh = golden_tensor(j, "weight_hh_l0", GH * H);
  layer.bias_ih = golden_tensor(j, "bias_ih_l0", GH);
  layer.bias_hh = golden_tensor(j, "bias_hh_l0", GH);
  const std::size_t BTH = static_cast<std::size_t>(B) * T * H;
  const std::vector<float> x = golden_tensor(j, "input", static_cast<std::size_t>(B) * T * I);

  layer.forward(x.data());
  expect_close_to_torch("output", layer.out.data(), golden_tensor(j, "output", BTH));

  const std::vector<float> R_last = golden_tensor(j, "R_last", static_cast<std::size_t>(B) * H);
  std::vector<float> dout_last(BTH, 0.0f);  // gradient on the last step only
  for (int b = 0; b < B; ++b)
    std::copy(R_last.begin() + b * H, R_last.begin() + (b + 1) * H,
              dout_last.begin() + (static_cast<std::size_t>(b) * T + T - 1) * H);
  const std::vector<float> dout_all = golden_tensor(j, "R_all", BTH);

  using Loss = std::pair<std::string, const std::vector<float>*>;
  for (const auto& [loss, dout] : {Loss{"last", &dout_last}, Loss{"all", &dout_all}}) {
    SCOPED_TRACE(std::string(cell.name) + " loss " + loss);
    layer.zero_grad();
    std::vector<float> dx(x.size(), 0.0f);
    layer.backward(dx.data(), dout->data(), x.data());
    const nlohmann::json& g = j.at("grad_" + loss);
    expect_close_to_torch("input.grad", dx.data(), golden_tensor(g, "input", x.size()));
    expect_close_to_torch("weight_ih_l0.grad", layer.dweight_ih.data(),
                          golden_tensor(g, "weight_ih_l0", GH * I));
    expect_close_to_torch("weight_hh_l0.grad", layer.dweight_hh.data(),
                          golden_tensor(g, "weight_hh_l0", GH * H));
    expect_close_to_torch("bias_ih_l0.grad", layer.dbias_ih.data(),
                          golden_tensor(g, "bias_ih_l0", GH));
    expect_close_to_torch("bias_hh_l0.grad", layer.dbias_hh.data(),
                          golden_tensor(g, "bias_hh_l0", GH));
  }
}

/// The init after torch.manual_seed(0) equals PyTorch's bit for bit.
inline void check_recurrent_init(RecurrentCell<float> cell) {
  const nlohmann::json j = load_golden(std::string("kernels/recurrent_") + cell.name + ".json");
  const int I = j.at("input_size"), H = j.at("hidden_size");
  const std::size_t GH = static_cast<std::size_t>(cell.G) * H;
  std::vector<float> w_ih(GH * I), w_hh(GH * H), b_ih(GH), b_hh(GH);
  random::Generator gen(0);
  cell.init(gen, w_ih.data(), w_hh.data(), b_ih.data(), b_hh.data(), I, H);
  layers::expect_bits_equal("weight_ih_l0", w_ih, golden_tensor(j, "weight_ih_l0", GH * I));
  layers::expect_bits_equal("weight_hh_l0", w_hh, golden_tensor(j, "weight_hh_l0", GH * H));
  layers::expect_bits_equal("bias_ih_l0", b_ih, golden_tensor(j, "bias_ih_l0", GH));
  layers::expect_bits_equal("bias_hh_l0", b_hh, golden_tensor(j, "bias_hh_l0", GH));
  // and nothing more was drawn: the next word matches a generator advanced
  // by exactly G·H·(I + H + 2) words
  random::Generator expected(0);
  for (std::size_t k = 0; k < kernels::recurrent_param_count(cell.G, I, H); ++k) expected.random();
  EXPECT_TRUE(gen == expected);
}

}  // namespace attnlab::testing
