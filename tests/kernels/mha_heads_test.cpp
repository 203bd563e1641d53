// The tiled per-head loops of multi-head attention (what mha_forward and
// mha_backward run) against the reference loops beside them
// (nn/mha_heads.hpp): P, y, the returned weights and dq, dk, dv, for every
// mask, dropout, appended key, layout and head size (D = 3 to 32, so whole
// registers, half registers and single lanes of y), in float and double.
//
// Table-driven: q, k, v are drawn straight into the cache, so the cases test
// the heads alone (the projections are tested with PyTorch's goldens in
// multihead_attention_golden_test). The two versions differ only in the
// order of the softmax's sums and in the exponential (a Cephes polynomial
// against libm's), so they agree to float rounding: within 2e-6 of the
// largest value of each tensor in float, 1e-13 in double.
#include "kernels/attention/mha_heads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "random/generator.hpp"

namespace attnlab::kernels {
namespace {

struct HeadsCase {
  std::string name;
  int B, T, S, C, H;
  bool batch_first = true, bias_kv = false, zero_attn = false;
  bool key_padding = false, causal = false, bool_mask = false, float_mask = false, per_head = false;
  bool blocked_rows = false;  // every key of batch 0 is padding, and query 1 of the bool mask sees nothing
  float dropout = 0.f;        // probability of dropping a weight
  MhaWeights which = MhaWeights::per_head;
};

std::ostream& operator<<(std::ostream& os, const HeadsCase& c) {
  return os << c.name << " (B=" << c.B << " T=" << c.T << " S=" << c.S << " C=" << c.C << " H=" << c.H << ")";
}

template <class T>
struct Problem {
  MhaDims d;
  MhaCacheLayout L;
  std::vector<T> cache, dy, mask_float;
  std::vector<std::uint8_t> kpm, mask_bool, keep;
  MhaMasks<T> masks;
  MhaDropout<T> dropout;

  explicit Problem(const HeadsCase& c)
      : d(mha_dims(c.B, c.T, c.S, c.C, c.H,
                   {.batch_first = c.batch_first, .add_bias_kv = c.bias_kv, .add_zero_attn = c.zero_attn})),
        L(mha_cache_layout(d)) {
    random::Generator g(11);
    std::vector<float> draw;
    auto normal = [&](std::size_t n, float scale) {
      draw.resize(n);
      g.normal(draw.data(), n);
      std::vector<T> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = T(draw[i] * scale);
      return v;
    };
    cache = normal(mha_cache_size(d), 1.5f);  // q, k, v where they sit; the rest is overwritten
    dy = normal(std::size_t(d.B) * d.T * d.C, 1.f);
    const std::size_t B = d.B, Tq = d.T, S = d.S, blocks = c.per_head ? B * d.H : 1;
    if (c.key_padding || c.blocked_rows) {
      kpm.assign(B * S, 0);
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < S; ++j) kpm[b * S + j] = c.blocked_rows ? b == 0 : (j * 7 + b) % 5 == 3;
      masks.key_padding = kpm.data();
    }
    if (c.bool_mask || c.blocked_rows) {
      mask_bool.assign(blocks * Tq * S, 0);
      for (std::size_t n = 0; n < mask_bool.size(); ++n) mask_bool[n] = (n * 11) % 7 == 2;
      if (c.blocked_rows && Tq > 1)
        for (std::size_t m = 0; m < blocks; ++m) std::fill_n(mask_bool.begin() + (m * Tq + 1) * S, S, 1);
      masks.attn_bool = mask_bool.data();
    }
    if (c.float_mask) {
      mask_float = normal(blocks * Tq * S, 1.f);
      for (std::size_t n = 0; n < mask_float.size(); n += 9) mask_float[n] = -std::numeric_limits<T>::infinity();
      masks.attn_float = mask_float.data();
    }
    masks.attn_per_head = c.per_head;
    masks.causal = c.causal;
    if (c.dropout > 0) {
      keep.resize(B * d.H * Tq * d.keys());
      g.dropout_mask(keep.data(), keep.size(), c.dropout);
      dropout = {keep.data(), T(1) / (T(1) - T(c.dropout))};
    }
  }

  std::size_t weights_size(MhaWeights which) const {
    return std::size_t(d.B) * (which == MhaWeights::per_head ? d.H : 1) * d.T * d.keys();
  }
};

// max |a - b| relative to the larger of 1 and max |b|
template <class T>
double worst(const T* a, const T* b, std::size_t n) {
  double largest = 1, diff = 0;
  for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(double(b[i])));
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::abs(double(a[i]) - double(b[i]));
    diff = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(diff, e);
  }
  return diff / largest;
}

template <class T>
void check_case(const HeadsCase& c, double tol) {
  Problem<T> pr(c);
  const MhaDims& d = pr.d;
  const MhaCacheLayout& L = pr.L;
  std::vector<T> cache_ref = pr.cache, cache_tiled = pr.cache;
  std::vector<T> w_ref(pr.weights_size(c.which)), w_tiled(w_ref.size());  // averaged adds into zeros
  mha_heads_forward_reference<T>(cache_ref.data(), L, w_ref.data(), c.which, pr.masks, pr.dropout, d);
  mha_heads_forward<T>(cache_tiled.data(), L, w_tiled.data(), c.which, pr.masks, pr.dropout, d);
  const std::size_t att_n = std::size_t(d.B) * d.H * d.T * d.keys(), y_n = std::size_t(d.B) * d.T * d.C;
  EXPECT_LE(worst(cache_tiled.data() + L.att, cache_ref.data() + L.att, att_n), tol) << "P";
  EXPECT_LE(worst(cache_tiled.data() + L.y, cache_ref.data() + L.y, y_n), tol) << "y";
  EXPECT_LE(worst(w_tiled.data(), w_ref.data(), w_ref.size()), tol) << "weights";
  // the projections are left as they were: the forward writes att, y and its tile only
  EXPECT_TRUE(std::equal(cache_tiled.begin(), cache_tiled.begin() + L.att, pr.cache.begin()));

  // backward from the reference's cache on both sides: the reference adds into zeros, the tiled
  // version writes over NaN (an element it left unwritten would stay NaN and fail the comparison)
  const std::size_t proj = L.att;
  std::vector<T> g_ref(proj, T(0)), g_tiled(proj, std::numeric_limits<T>::quiet_NaN());
  std::vector<T> tile_ref(mha_backward_tile_size(d)), tile_tiled(tile_ref.size());
  mha_heads_backward_reference<T>(g_ref.data(), pr.dy.data(), tile_ref.data(), cache_ref.data(), L, pr.dropout, d);
  mha_heads_backward<T>(g_tiled.data(), pr.dy.data(), tile_tiled.data(), cache_ref.data(), L, pr.dropout, d);
  EXPECT_LE(worst(g_tiled.data(), g_ref.data(), proj), tol) << "dq, dk, dv";
  bool any_gradient = false;  // the case moved something (a case of blocked rows only would prove nothing)
  for (T x : g_tiled) any_gradient |= x != T(0);
  EXPECT_TRUE(any_gradient);
}

class TiledHeads : public ::testing::TestWithParam<HeadsCase> {};
TEST_P(TiledHeads, MatchReferenceFloat) { check_case<float>(GetParam(), 2e-6); }
TEST_P(TiledHeads, MatchReferenceDouble) { check_case<double>(GetParam(), 1e-13); }

HeadsCase make(std::string name, int B, int T, int S, int C, int H) {
  HeadsCase c;
  c.name = std::move(name);
  c.B = B, c.T = T, c.S = S, c.C = C, c.H = H;
  return c;
}

std::vector<HeadsCase> cases() {
  std::vector<HeadsCase> v;
  v.push_back(make("course_positions", 4, 8, 8, 32, 4));  // D = 8, S = one register
  v.push_back(make("head_size_3", 2, 5, 5, 6, 2));        // D and S below a register
  v.push_back(make("head_size_16_ragged", 2, 13, 19, 32, 2));
  v.push_back(make("head_size_24", 2, 9, 9, 48, 2));       // D past its last whole register
  v.push_back(make("head_size_4", 4, 8, 8, 32, 8));        // half a register (heads' 8 heads)
  v.push_back(make("head_size_14", 2, 9, 11, 28, 2));      // a register, half of one, then two lanes
  v.push_back(make("two_query_blocks", 1, 100, 37, 64, 2));  // T > 64: a second, short block of queries
  v.push_back(make("one_step", 3, 1, 1, 16, 2));
  {
    auto c = make("averaged_weights", 2, 7, 11, 16, 4);
    c.which = MhaWeights::averaged;
    v.push_back(c);
  }
  {
    auto c = make("no_weights", 2, 7, 11, 16, 4);
    c.which = MhaWeights::none;
    v.push_back(c);
  }
  {
    auto c = make("sequence_first", 3, 11, 7, 16, 4);
    c.batch_first = false;
    v.push_back(c);
  }
  {
    auto c = make("causal_key_padding", 2, 19, 19, 16, 2);
    c.causal = true, c.key_padding = true;
    v.push_back(c);
  }
  {
    auto c = make("bool_and_float_per_head", 2, 14, 10, 16, 2);
    c.bool_mask = true, c.float_mask = true, c.per_head = true;
    v.push_back(c);
  }
  {
    auto c = make("blocked_rows", 3, 6, 6, 16, 2);  // batch 0 sees no key; query 1 of every batch neither
    c.blocked_rows = true;
    v.push_back(c);
  }
  {
    auto c = make("appended_keys_masked", 2, 9, 9, 16, 2);  // appended keys are never masked
    c.bias_kv = true, c.zero_attn = true, c.key_padding = true, c.causal = true;
    v.push_back(c);
  }
  {
    auto c = make("dropout", 4, 8, 8, 32, 4);
    c.dropout = 0.3f;
    v.push_back(c);
  }
  {
    auto c = make("dropout_masks_sequence_first", 2, 12, 12, 16, 2);
    c.dropout = 0.1f, c.batch_first = false, c.bool_mask = true, c.blocked_rows = true;
    v.push_back(c);
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Cases, TiledHeads, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// The tiled heads depend on the values alone: the same problem in buffers at
// another offset gives the same bytes (every element takes the same vector
// instructions; no sum depends on where a register boundary falls in memory).
TEST(TiledHeads, BytesDoNotDependOnTheBuffersAddress) {
  const HeadsCase c = make("course_positions", 4, 8, 8, 32, 4);
  Problem<float> pr(c);
  const MhaDims& d = pr.d;
  std::vector<float> a = pr.cache, shifted(pr.cache.size() + 3);
  std::copy(pr.cache.begin(), pr.cache.end(), shifted.begin() + 3);
  mha_heads_forward<float>(a.data(), pr.L, nullptr, MhaWeights::none, pr.masks, pr.dropout, d);
  mha_heads_forward<float>(shifted.data() + 3, pr.L, nullptr, MhaWeights::none, pr.masks, pr.dropout, d);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + pr.L.tile, shifted.begin() + 3));
}

}  // namespace
}  // namespace attnlab::kernels
