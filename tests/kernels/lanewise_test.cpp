// Every elementwise kernel gives each element the same bits wherever its
// buffer lies and wherever the element sits in it. xtensor's SIMD assignment
// used scalar libm code for the elements before the first aligned address
// and after the last full register, and GELU's erf there differs in the last
// bits (-0.0349723436 against -0.0349724069 at x = -2.135): the trained
// tables then depended on malloc's addresses, so on -j (issue 8).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/gelu.hpp"
#include "kernels/lstm.hpp"
#include "kernels/recurrent_kernels.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

using attnlab::testing::fill_pseudo_random;

constexpr int kMaxOffset = 16;  // one AVX-512 register of floats: every alignment
constexpr int kMaxLength = 41;  // several registers and every tail length of 8 and 16

std::vector<float> filled(std::size_t n, unsigned seed, double scale = 1.0) {
  std::vector<double> d(n);
  fill_pseudo_random(d.data(), n, seed, scale);
  return std::vector<float>(d.begin(), d.end());
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Values where libm and xsimd disagree in the last bit, and ordinary ones.
std::vector<float> inputs(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = -3.0f + 0.173f * static_cast<float>(i % 37);
  return x;
}

// kernel(out, in0, in1, n) over copies of the inputs placed at every offset of
// a buffer and for every length: each output must equal the output the same
// element gets alone (a call with n = 1, which takes the padded-tail path).
template <class Kernel>
void expect_address_and_position_independent(const char* name, Kernel kernel) {
  const std::vector<float> x = inputs(kMaxLength), y = inputs(kMaxLength + 5);
  std::vector<float> alone(kMaxLength);
  for (int i = 0; i < kMaxLength; ++i) {
    float out = 0.25f;
    kernel(&out, &x[i], &y[i + 5], 1);
    alone[i] = out;
  }
  std::vector<float> in0(kMaxLength + kMaxOffset), in1(kMaxLength + kMaxOffset), out(kMaxLength + kMaxOffset);
  for (int offset = 0; offset < kMaxOffset; ++offset)
    for (int n = 1; n <= kMaxLength; ++n) {
      std::memcpy(in0.data() + offset, x.data(), sizeof(float) * n);
      std::memcpy(in1.data() + offset, y.data() + 5, sizeof(float) * n);
      std::fill(out.begin(), out.end(), 0.25f);
      kernel(out.data() + offset, in0.data() + offset, in1.data() + offset, n);
      for (int i = 0; i < n; ++i)
        ASSERT_TRUE(same_bits(out[offset + i], alone[i]))
            << name << ": element " << i << " of " << n << " at offset " << offset << " (x = " << x[i]
            << "): " << out[offset + i] << " vs " << alone[i] << " alone";
      ASSERT_EQ(out[offset + n], 0.25f) << name << " wrote past the end";
    }
}

TEST(Lanewise, GeluForwardDependsOnTheValueAlone) {
  expect_address_and_position_independent(
      "gelu_forward", [](float* o, const float* a, const float*, int n) { gelu_forward(o, a, n); });
}

TEST(Lanewise, GeluBackwardDependsOnTheValuesAlone) {
  // out starts at 0.25 everywhere, and the backward pass adds into it.
  expect_address_and_position_independent(
      "gelu_backward", [](float* o, const float* a, const float* b, int n) { gelu_backward(o, b, a, n); });
}

TEST(Lanewise, SigmoidAndTanhDependOnTheValueAlone) {
  expect_address_and_position_independent(
      "sigmoid", [](float* o, const float* a, const float*, int n) { detail::sigmoid_into(o, a, n); });
  expect_address_and_position_independent(
      "tanh", [](float* o, const float* a, const float*, int n) { detail::tanh_into(o, a, n); });
}

TEST(Lanewise, MapLanesHandlesEveryTailAndAnOutputThatIsAnInput) {
  // out[i] = 2 * out[i] + in[i], in place; by hand: 2 * 0.25 + i.
  for (int n = 0; n <= kMaxLength; ++n) {
    std::vector<float> out(n + 1, 0.25f), in(n);
    for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i);
    detail::map_lanes(out.data(), n, [](auto o, auto a) { return 2.0f * o + a; },
                      static_cast<const float*>(out.data()), static_cast<const float*>(in.data()));
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 0.5f + i) << i << " of " << n;
    ASSERT_EQ(out[n], 0.25f) << "wrote past the end at n = " << n;
  }
}

// A whole layer: the same LSTM forward and backward from buffers at other
// float offsets give the same bits (B·H = 15 is no multiple of a register).
TEST(Lanewise, LstmGivesTheSameBitsFromBuffersAnywhere) {
  const int B = 3, T = 4, I = 6, H = 5;
  const std::size_t nx = std::size_t(B) * T * I, nh = std::size_t(B) * T * H;
  const std::vector<float> x = filled(nx, 1), wih = filled(4 * H * I, 2, 0.5), whh = filled(4 * H * H, 3, 0.5),
                           bih = filled(4 * H, 4, 0.2), bhh = filled(4 * H, 5, 0.2), dout = filled(nh, 6);
  std::vector<float> first_out, first_dx;
  for (int offset = 0; offset < kMaxOffset; ++offset) {
    std::vector<float> in(nx + offset), out(nh + offset), cache(lstm_cache_size(B, T, H) + offset),
        scratch(lstm_scratch_size(B, T, H) + offset), dx(nx + offset, 0.0f), g(nh + offset);
    std::vector<float> dwih(wih.size(), 0.0f), dwhh(whh.size(), 0.0f), dbih(bih.size(), 0.0f), dbhh(bhh.size(), 0.0f);
    std::memcpy(in.data() + offset, x.data(), sizeof(float) * nx);
    std::memcpy(g.data() + offset, dout.data(), sizeof(float) * nh);
    lstm_forward(out.data() + offset, cache.data() + offset, in.data() + offset, wih.data(), whh.data(), bih.data(),
                 bhh.data(), B, T, I, H);
    lstm_backward(dx.data() + offset, dwih.data(), dwhh.data(), dbih.data(), dbhh.data(), scratch.data() + offset,
                  g.data() + offset, cache.data() + offset, in.data() + offset, wih.data(), whh.data(), B, T, I, H);
    const std::vector<float> o(out.begin() + offset, out.end()), d(dx.begin() + offset, dx.end());
    if (offset == 0) {
      first_out = o;
      first_dx = d;
      continue;
    }
    EXPECT_EQ(std::memcmp(o.data(), first_out.data(), sizeof(float) * nh), 0) << "output at offset " << offset;
    EXPECT_EQ(std::memcmp(d.data(), first_dx.data(), sizeof(float) * nx), 0) << "d input at offset " << offset;
  }
}

}  // namespace
}  // namespace attnlab::kernels
