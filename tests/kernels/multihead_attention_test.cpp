// Multi-head attention: a forward case by hand, finite-difference gradient
// checks of every input and parameter (double, tiny shapes, table-driven),
// the all-blocked-row contract, and the API's small promises.
#include "kernels/multihead_attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

using attnlab::testing::expect_gradient_close;
using attnlab::testing::fill_pseudo_random;
using attnlab::testing::numerical_gradient;

// ---------------------------------------------------------------------------
// dims and sizes

TEST(MultiheadAttentionDims, RejectsDModelNotDivisibleByHeads) {
  try {
    mha_dims(2, 3, 3, 10, 4);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("10"), std::string::npos) << msg;
    EXPECT_NE(msg.find("4"), std::string::npos) << msg;
  }
  EXPECT_THROW(mha_dims(0, 3, 3, 8, 2), std::invalid_argument);
  EXPECT_THROW(mha_dims(1, 3, 3, 8, 0), std::invalid_argument);
  const MhaDims d = mha_dims(2, 6, 5, 32, 4);
  EXPECT_EQ(d.D, 8);
}

TEST(MultiheadAttentionDims, SizesAndParameterCount) {
  EXPECT_EQ(mha_parameter_count(32), 4224u);  // the course's 06_mha_shapes prints 4224
  const MhaDims self = mha_dims(2, 6, 6, 32, 4);
  // q,k,v 2·6·96 + att 2·4·6·6 + y 2·6·32 + the heads' tile: keys transposed
  // (D = 8, S = 6 padded to 8) and a block of scores (6 rows of 8)
  EXPECT_EQ(mha_cache_size(self), 1152u + 288u + 384u + (8u * 8 + 6u * 8));
  // dq,dk,dv + dy + values transposed, a block of dP, P'^T and dS^T (8 rows of 6 each)
  EXPECT_EQ(mha_scratch_size(self), 1152u + 384u + (8u * 8 + 6u * 8 + 2u * 8 * 6));
  const MhaCacheLayout ls = mha_cache_layout(self);
  EXPECT_EQ(ls.q, 0u);
  EXPECT_EQ(ls.k, 32u);
  EXPECT_EQ(ls.v, 64u);
  EXPECT_EQ(ls.ld_q, 96u);
  const MhaDims cross = mha_dims(2, 6, 5, 32, 4);
  const MhaCacheLayout lc = mha_cache_layout(cross);
  EXPECT_EQ(lc.k, 2u * 6 * 32);
  EXPECT_EQ(lc.ld_kv, 64u);
  EXPECT_EQ(lc.total, 2u * 6 * 32 + 2u * 2 * 5 * 32 + 2u * 4 * 6 * 5 + 2u * 6 * 32 + (8u * 8 + 6u * 8));
  // the flash forward's workspace holds neither the weights nor the tile
  EXPECT_EQ(mha_cache_layout(cross, false).total, 2u * 6 * 32 + 2u * 2 * 5 * 32 + 2u * 6 * 32);
}

// ---------------------------------------------------------------------------
// A forward case by hand.
//
// C = 2, H = 2 (so D = 1 and sqrt(D) = 1), B = 2, T = 1, S = 2, cross-attention.
// in_proj_weight = [I; I; I], in_proj_bias = 0, so q = query, k = key, v = value.
// out_proj_weight = [[1, 1], [0, 2]], out_proj_bias = [0.5, -1].
// Batch 0: query = [ln 3, 1], keys [1, 1] and [0, 1], values [2, 4] and [8, 6].
//   head 0 (column 0): scores ln3·1 = ln 3 and ln3·0 = 0 → softmax [3/4, 1/4]
//                      y0 = 3/4·2 + 1/4·8 = 3.5
//   head 1 (column 1): scores 1·1 = 1 and 1·1 = 1 → softmax [1/2, 1/2]
//                      y1 = 1/2·4 + 1/2·6 = 5
//   out = [1·3.5 + 1·5 + 0.5, 0·3.5 + 2·5 - 1] = [9, 9]
//   averaged weights = [(3/4 + 1/2)/2, (1/4 + 1/2)/2] = [5/8, 3/8]
// Batch 1: same query, keys and values, but key_padding_mask blocks both keys:
//   weights [0, 0] in both heads, y = 0, out = out_proj_bias = [0.5, -1]
//   (PyTorch would give NaN here; we define it as zero attention).
TEST(MultiheadAttentionForward, ByHand) {
  const MhaDims d = mha_dims(2, 1, 2, 2, 2);
  const std::vector<double> in_w = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
  const std::vector<double> in_b(6, 0.0);
  const std::vector<double> out_w = {1, 1, 0, 2};
  const std::vector<double> out_b = {0.5, -1};
  const double ln3 = std::log(3.0);
  const std::vector<double> query = {ln3, 1, ln3, 1};
  const std::vector<double> key = {1, 1, 0, 1, 1, 1, 0, 1};
  const std::vector<double> value = {2, 4, 8, 6, 2, 4, 8, 6};
  const std::vector<std::uint8_t> kpm = {0, 0, 1, 1};
  MhaMasks<double> masks;
  masks.key_padding = kpm.data();

  std::vector<double> out(4), avg(4), head(8), cache(mha_cache_size(d));
  multihead_attention_forward<double>(out.data(), avg.data(), MhaWeights::averaged, cache.data(),
                                      query.data(), key.data(), value.data(), masks, {}, in_w.data(),
                                      in_b.data(), out_w.data(), out_b.data(), d);
  EXPECT_NEAR(out[0], 9.0, 1e-12);
  EXPECT_NEAR(out[1], 9.0, 1e-12);
  EXPECT_EQ(out[2], 0.5);
  EXPECT_EQ(out[3], -1.0);
  EXPECT_NEAR(avg[0], 5.0 / 8, 1e-15);
  EXPECT_NEAR(avg[1], 3.0 / 8, 1e-15);
  EXPECT_EQ(avg[2], 0.0);
  EXPECT_EQ(avg[3], 0.0);

  multihead_attention_forward<double>(out.data(), head.data(), MhaWeights::per_head, cache.data(),
                                      query.data(), key.data(), value.data(), masks, {}, in_w.data(),
                                      in_b.data(), out_w.data(), out_b.data(), d);
  const std::vector<double> expect_head = {0.75, 0.25, 0.5, 0.5, 0, 0, 0, 0};
  for (std::size_t n = 0; n < 8; ++n) EXPECT_NEAR(head[n], expect_head[n], 1e-15) << n;

  // with a fixed dropout mask (batch 0 head 0 drops key 1; p = 0.5 → scale 2 on every kept weight):
  // head 0 weights become [3/2, 0], y0 = 3/2·2 = 3; head 1 weights [1, 1], y1 = 4 + 6 = 10;
  // out = [3 + 10 + 0.5, 0·3 + 2·10 - 1] = [13.5, 19]
  const std::vector<std::uint8_t> keep = {1, 0, 1, 1, 1, 1, 1, 1};
  MhaDropout<double> drop{keep.data(), 2.0};
  multihead_attention_forward<double>(out.data(), head.data(), MhaWeights::per_head, cache.data(),
                                      query.data(), key.data(), value.data(), masks, drop,
                                      in_w.data(), in_b.data(), out_w.data(), out_b.data(), d);
  EXPECT_NEAR(out[0], 13.5, 1e-12);
  EXPECT_NEAR(out[1], 19.0, 1e-12);
  EXPECT_NEAR(head[0], 1.5, 1e-15);  // returned weights are post-dropout, as in PyTorch 1.13
  EXPECT_EQ(head[1], 0.0);
  EXPECT_EQ(head[2], 1.0);
  EXPECT_EQ(head[3], 1.0);
}

// ---------------------------------------------------------------------------
// Gradient checks, table-driven.

struct GradCase {
  std::string name;
  int B, T, S, C, H;
  bool self = false;          // query = key = value (same pointer)
  bool shared_grad = false;   // self-attention with one gradient buffer for all three
  bool key_padding = false;   // pads the last key of batch 1
  bool causal = false;        // bool attn_mask, j > i blocked
  bool float_mask = false;    // float attn_mask, random values
  bool dropout = false;       // a fixed keep mask, scale 1/(1-0.25)
  bool blocked_row = false;   // bool attn_mask blocking every key of query row 1
  bool kv_same = false;       // key = value (same pointer), query apart: the packed [k | v] product
  bool kv_shared_grad = false;  // ... and one buffer for d_key and d_value
};

std::ostream& operator<<(std::ostream& os, const GradCase& c) {
  return os << c.name << " (B=" << c.B << " T=" << c.T << " S=" << c.S << " C=" << c.C << " H=" << c.H
            << ", D=" << c.C / c.H << ")";
}

// Everything one case needs, with the loss sum(out ⊙ g).
struct Problem {
  GradCase c;
  MhaDims d;
  std::vector<double> query, key, value, in_w, in_b, out_w, out_b, g;
  std::vector<std::uint8_t> kpm, mask_bool, keep;
  std::vector<double> mask_float;
  MhaMasks<double> masks;
  MhaDropout<double> drop;
  std::vector<double> out, weights, cache;

  explicit Problem(const GradCase& gc) : c(gc), d(mha_dims(gc.B, gc.T, gc.S, gc.C, gc.H)) {
    const int B = d.B, T = d.T, S = d.S, C = d.C;
    query.resize(std::size_t(B) * T * C);
    fill_pseudo_random(query.data(), query.size(), 1);
    if (!c.self) {
      key.resize(std::size_t(B) * S * C);
      value.resize(key.size());
      fill_pseudo_random(key.data(), key.size(), 2);
      fill_pseudo_random(value.data(), value.size(), 3);
    }
    in_w.resize(3 * C * C);
    in_b.resize(3 * C);
    out_w.resize(C * C);
    out_b.resize(C);
    fill_pseudo_random(in_w.data(), in_w.size(), 4, 0.8);
    fill_pseudo_random(in_b.data(), in_b.size(), 5, 0.3);
    fill_pseudo_random(out_w.data(), out_w.size(), 6, 0.8);
    fill_pseudo_random(out_b.data(), out_b.size(), 7, 0.3);
    g.resize(std::size_t(B) * T * C);
    fill_pseudo_random(g.data(), g.size(), 8);
    if (c.key_padding) {
      kpm.assign(std::size_t(B) * S, 0);
      kpm[std::size_t(1) * S + (S - 1)] = 1;
      masks.key_padding = kpm.data();
    }
    if (c.causal || c.blocked_row) {
      mask_bool.assign(std::size_t(T) * S, 0);
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < S; ++j) {
          if (c.causal && j > i) mask_bool[std::size_t(i) * S + j] = 1;
          if (c.blocked_row && i == 1) mask_bool[std::size_t(i) * S + j] = 1;
        }
      masks.attn_bool = mask_bool.data();
    }
    if (c.float_mask) {
      mask_float.resize(std::size_t(T) * S);
      fill_pseudo_random(mask_float.data(), mask_float.size(), 9, 1.5);
      masks.attn_float = mask_float.data();
    }
    if (c.dropout) {
      keep.resize(std::size_t(B) * d.H * T * S);
      unsigned s = 12345;
      for (auto& k : keep) {
        s = s * 1664525u + 1013904223u;
        k = ((s >> 16) % 4) != 0;  // drops about a quarter
      }
      drop.keep = keep.data();
      drop.scale = 1.0 / 0.75;
    }
    out.resize(std::size_t(B) * T * C);
    weights.resize(std::size_t(B) * d.H * T * S);
    cache.resize(mha_cache_size(d));
  }

  const double* k_ptr() const { return c.self ? query.data() : key.data(); }
  const double* v_ptr() const { return c.self ? query.data() : c.kv_same ? key.data() : value.data(); }

  double loss() {
    multihead_attention_forward<double>(out.data(), weights.data(), MhaWeights::per_head, cache.data(),
                                        query.data(), k_ptr(), v_ptr(), masks, drop, in_w.data(),
                                        in_b.data(), out_w.data(), out_b.data(), d);
    double l = 0;
    for (std::size_t n = 0; n < out.size(); ++n) l += out[n] * g[n];
    return l;
  }
};

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

class MultiheadAttentionGradcheck : public ::testing::TestWithParam<GradCase> {};

TEST_P(MultiheadAttentionGradcheck, EveryGradientMatchesFiniteDifferences) {
  Problem p(GetParam());
  const MhaDims& d = p.d;
  p.loss();

  // analytic: backward adds into zeroed buffers
  std::vector<double> dq(p.query.size(), 0.0), dk(p.key.size(), 0.0), dv(p.value.size(), 0.0);
  std::vector<double> dx_k(p.query.size(), 0.0), dx_v(p.query.size(), 0.0);
  std::vector<double> din_w(p.in_w.size(), 0.0), din_b(p.in_b.size(), 0.0);
  std::vector<double> dout_w(p.out_w.size(), 0.0), dout_b(p.out_b.size(), 0.0);
  std::vector<double> scratch(mha_scratch_size(d));
  double *gq = dq.data(), *gk = nullptr, *gv = nullptr;
  if (p.c.self) {
    gk = p.c.shared_grad ? dq.data() : dx_k.data();
    gv = p.c.shared_grad ? dq.data() : dx_v.data();
  } else {
    gk = dk.data();
    gv = p.c.kv_shared_grad ? dk.data() : dv.data();
  }
  multihead_attention_backward<double>(gq, gk, gv, din_w.data(), din_b.data(), dout_w.data(),
                                       dout_b.data(), scratch.data(), p.g.data(), p.cache.data(),
                                       p.query.data(), p.k_ptr(), p.v_ptr(), p.drop, p.in_w.data(),
                                       p.out_w.data(), d);
  if (p.c.self && !p.c.shared_grad)  // the caller sums the three input gradients
    for (std::size_t n = 0; n < dq.size(); ++n) dq[n] += dx_k[n] + dx_v[n];
  if (p.c.kv_same && !p.c.kv_shared_grad)  // key's total gradient: as key and as value
    for (std::size_t n = 0; n < dk.size(); ++n) dk[n] += dv[n];

  for (const auto* v : {&dq, &dk, &dv, &din_w, &din_b, &dout_w, &dout_b})
    ASSERT_TRUE(all_finite(*v)) << GetParam();
  ASSERT_TRUE(all_finite(p.out));
  ASSERT_TRUE(all_finite(p.weights));

  auto loss = [&p] { return p.loss(); };
  SCOPED_TRACE(::testing::PrintToString(GetParam()));
  expect_gradient_close("query", dq.data(), numerical_gradient(loss, p.query.data(), p.query.size()));
  if (!p.c.self) {
    expect_gradient_close("key", dk.data(), numerical_gradient(loss, p.key.data(), p.key.size()));
    if (!p.c.kv_same)
      expect_gradient_close("value", dv.data(), numerical_gradient(loss, p.value.data(), p.value.size()));
  }
  expect_gradient_close("in_proj_weight", din_w.data(), numerical_gradient(loss, p.in_w.data(), p.in_w.size()));
  expect_gradient_close("in_proj_bias", din_b.data(), numerical_gradient(loss, p.in_b.data(), p.in_b.size()));
  expect_gradient_close("out_proj.weight", dout_w.data(),
                        numerical_gradient(loss, p.out_w.data(), p.out_w.size()));
  expect_gradient_close("out_proj.bias", dout_b.data(),
                        numerical_gradient(loss, p.out_b.data(), p.out_b.size()));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MultiheadAttentionGradcheck,
    ::testing::Values(
        GradCase{"no_mask", 2, 3, 4, 4, 2},
        GradCase{"self", 2, 3, 3, 4, 2, true},
        GradCase{"self_shared_grad", 2, 3, 3, 4, 2, true, true},
        GradCase{"key_padding", 2, 3, 4, 4, 2, false, false, true},
        GradCase{"causal_bool", 2, 4, 4, 4, 2, true, false, false, true},
        GradCase{"float_mask", 2, 3, 4, 4, 2, false, false, false, false, true},
        GradCase{"both_masks", 2, 4, 4, 4, 2, true, false, true, true},
        GradCase{"blocked_row", 2, 3, 4, 4, 2, false, false, false, false, false, false, true},
        GradCase{"cross_T_gt_S", 2, 5, 3, 6, 3},
        GradCase{"one_head", 1, 3, 2, 4, 1},
        GradCase{"dropout", 2, 3, 4, 4, 2, false, false, false, false, false, true},
        GradCase{"dropout_self_masks", 2, 4, 4, 4, 2, true, false, true, true, false, true},
        // key == value (encoder-decoder): one (B·S, C)·(C, 2C) product into [k | v]
        GradCase{.name = "key_is_value", .B = 2, .T = 3, .S = 4, .C = 4, .H = 2, .kv_same = true},
        GradCase{.name = "key_is_value_one_grad", .B = 2, .T = 3, .S = 4, .C = 4, .H = 2, .kv_same = true,
                 .kv_shared_grad = true},
        GradCase{.name = "key_is_value_T_eq_S", .B = 2, .T = 4, .S = 4, .C = 4, .H = 2, .key_padding = true,
                 .kv_same = true},
        // The compile-time head sizes (dispatch_head_size: D = 8, 16, 32, 64), each
        // with the paths the course takes through it.
        GradCase{.name = "D8_self_masks_dropout", .B = 2, .T = 4, .S = 4, .C = 16, .H = 2, .self = true,
                 .key_padding = true, .causal = true, .dropout = true},
        GradCase{.name = "D8_key_is_value", .B = 2, .T = 3, .S = 3, .C = 16, .H = 2, .kv_same = true,
                 .kv_shared_grad = true},
        GradCase{.name = "D16_cross_float_mask", .B = 1, .T = 3, .S = 4, .C = 16, .H = 1, .float_mask = true},
        GradCase{.name = "D16_two_heads_blocked_row", .B = 1, .T = 3, .S = 4, .C = 32, .H = 2,
                 .blocked_row = true},
        GradCase{.name = "D32_self_key_padding", .B = 2, .T = 3, .S = 3, .C = 32, .H = 1, .self = true,
                 .shared_grad = true, .key_padding = true},
        GradCase{.name = "D64_cross_dropout", .B = 1, .T = 2, .S = 3, .C = 64, .H = 1, .dropout = true},
        GradCase{.name = "D64_key_is_value", .B = 1, .T = 2, .S = 2, .C = 64, .H = 1, .kv_same = true}),
    [](const ::testing::TestParamInfo<GradCase>& info) { return info.param.name; });

// ---------------------------------------------------------------------------
// The all-blocked-row contract: zeros instead of PyTorch's NaN, no NaN anywhere.

TEST(MultiheadAttentionMasks, FullyBlockedRowGivesZerosAndNoNan) {
  GradCase gc{"blocked_everything", 2, 3, 4, 4, 2, false, false, true, false, true, false, true};
  Problem p(gc);
  // batch 1 also has every key padded: all its rows are blocked
  for (int j = 0; j < p.d.S; ++j) p.kpm[std::size_t(1) * p.d.S + j] = 1;
  // and a float mask of -inf over a whole row 2 (a user-built mask can do that)
  for (int j = 0; j < p.d.S; ++j) p.mask_float[std::size_t(2) * p.d.S + j] = -std::numeric_limits<double>::infinity();
  p.loss();
  const MhaDims& d = p.d;
  const std::size_t T = d.T, S = d.S, C = d.C, H = d.H;
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < T; ++i) {
        const bool blocked = b == 1 || i == 1 || i == 2;
        double sum = 0;
        for (std::size_t j = 0; j < S; ++j) sum += p.weights[((b * H + h) * T + i) * S + j];
        if (blocked) {
          EXPECT_EQ(sum, 0.0) << b << h << i;
        } else {
          EXPECT_NEAR(sum, 1.0, 1e-12) << b << h << i;
        }
      }
  // a blocked row's head output y is 0, so the layer outputs out_proj.bias there
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < T; ++i)
      if (b == 1 || i == 1 || i == 2) {
        for (std::size_t c = 0; c < C; ++c) EXPECT_EQ(p.out[(b * T + i) * C + c], p.out_b[c]);
      }
  ASSERT_TRUE(all_finite(p.out));
  ASSERT_TRUE(all_finite(p.cache));

  std::vector<double> dq(p.query.size(), 0.0), dk(p.key.size(), 0.0), dv(p.value.size(), 0.0);
  std::vector<double> din_w(p.in_w.size(), 0.0), din_b(p.in_b.size(), 0.0);
  std::vector<double> dout_w(p.out_w.size(), 0.0), dout_b(p.out_b.size(), 0.0);
  std::vector<double> scratch(mha_scratch_size(d));
  multihead_attention_backward<double>(dq.data(), dk.data(), dv.data(), din_w.data(), din_b.data(),
                                       dout_w.data(), dout_b.data(), scratch.data(), p.g.data(),
                                       p.cache.data(), p.query.data(), p.key.data(), p.value.data(),
                                       p.drop, p.in_w.data(), p.out_w.data(), d);
  for (const auto* v : {&dq, &dk, &dv, &din_w, &din_b, &dout_w, &dout_b}) ASSERT_TRUE(all_finite(*v));
  // nothing reaches the blocked queries or batch 1's keys and values
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t c = 0; c < C; ++c) {
      if (i == 1 || i == 2) {
        EXPECT_EQ(dq[i * C + c], 0.0);
      }
      EXPECT_EQ(dq[(T + i) * C + c], 0.0);
    }
  for (std::size_t n = S * C; n < 2 * S * C; ++n) {
    EXPECT_EQ(dk[n], 0.0);
    EXPECT_EQ(dv[n], 0.0);
  }

  auto loss = [&p] { return p.loss(); };
  expect_gradient_close("query", dq.data(), numerical_gradient(loss, p.query.data(), p.query.size()));
  expect_gradient_close("key", dk.data(), numerical_gradient(loss, p.key.data(), p.key.size()));
  expect_gradient_close("value", dv.data(), numerical_gradient(loss, p.value.data(), p.value.size()));
  expect_gradient_close("in_proj_weight", din_w.data(), numerical_gradient(loss, p.in_w.data(), p.in_w.size()));
  expect_gradient_close("in_proj_bias", din_b.data(), numerical_gradient(loss, p.in_b.data(), p.in_b.size()));
  expect_gradient_close("out_proj.weight", dout_w.data(),
                        numerical_gradient(loss, p.out_w.data(), p.out_w.size()));
  expect_gradient_close("out_proj.bias", dout_b.data(),
                        numerical_gradient(loss, p.out_b.data(), p.out_b.size()));
}

// ---------------------------------------------------------------------------
// API promises: backward adds; the self-attention fast paths equal the general ones.

TEST(MultiheadAttentionBackward, AddsIntoGradientBuffers) {
  Problem p(GradCase{"adds", 2, 3, 4, 4, 2, false, false, true, true, true});
  p.loss();
  std::vector<double> scratch(mha_scratch_size(p.d));
  auto run = [&](std::vector<std::vector<double>>& gr) {
    multihead_attention_backward<double>(gr[0].data(), gr[1].data(), gr[2].data(), gr[3].data(),
                                         gr[4].data(), gr[5].data(), gr[6].data(), scratch.data(),
                                         p.g.data(), p.cache.data(), p.query.data(), p.key.data(),
                                         p.value.data(), p.drop, p.in_w.data(), p.out_w.data(), p.d);
  };
  const std::vector<std::size_t> sizes = {p.query.size(), p.key.size(), p.value.size(), p.in_w.size(),
                                          p.in_b.size(),  p.out_w.size(), p.out_b.size()};
  std::vector<std::vector<double>> once, twice;
  for (auto n : sizes) {
    once.emplace_back(n, 0.0);
    twice.emplace_back(n, 0.0);
  }
  run(once);
  run(twice);
  run(twice);
  for (std::size_t t = 0; t < once.size(); ++t)
    for (std::size_t n = 0; n < once[t].size(); ++n)
      EXPECT_NEAR(twice[t][n], 2 * once[t][n], 1e-12 * (1 + std::abs(once[t][n]))) << t << " " << n;
}

TEST(MultiheadAttentionForward, SelfAttentionPackedPathEqualsSeparateInputs) {
  // the same values through one pointer (one packed product) and three copies
  Problem p(GradCase{"self", 2, 4, 4, 8, 2, true, false, true, true});
  p.loss();
  const std::vector<double> out_packed = p.out, cache_packed = p.cache;
  const std::vector<double> k_copy = p.query, v_copy = p.query;
  std::vector<double> out(p.out.size()), cache(p.cache.size());
  multihead_attention_forward<double>(out.data(), nullptr, MhaWeights::none, cache.data(), p.query.data(),
                                      k_copy.data(), v_copy.data(), p.masks, p.drop, p.in_w.data(),
                                      p.in_b.data(), p.out_w.data(), p.out_b.data(), p.d);
  for (std::size_t n = 0; n < out.size(); ++n) EXPECT_NEAR(out[n], out_packed[n], 1e-12);
  for (std::size_t n = 0; n < cache.size(); ++n) EXPECT_NEAR(cache[n], cache_packed[n], 1e-12);
}

TEST(MultiheadAttentionForward, FloatInstantiationAgreesWithDouble) {
  Problem p(GradCase{"float", 2, 5, 4, 8, 2, false, false, true, false, true, true});
  p.loss();
  auto f = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  const auto q = f(p.query), k = f(p.key), v = f(p.value), iw = f(p.in_w), ib = f(p.in_b), ow = f(p.out_w),
             ob = f(p.out_b), mf = f(p.mask_float);
  MhaMasks<float> masks;
  masks.key_padding = p.kpm.data();
  masks.attn_float = mf.data();
  MhaDropout<float> drop{p.keep.data(), float(p.drop.scale)};
  std::vector<float> out(p.out.size()), avg(std::size_t(p.d.B) * p.d.T * p.d.S), cache(mha_cache_size(p.d));
  multihead_attention_forward<float>(out.data(), avg.data(), MhaWeights::averaged, cache.data(), q.data(),
                                     k.data(), v.data(), masks, drop, iw.data(), ib.data(), ow.data(),
                                     ob.data(), p.d);
  for (std::size_t n = 0; n < out.size(); ++n) EXPECT_NEAR(out[n], p.out[n], 1e-5);
  const std::size_t BTS = avg.size(), H = p.d.H, TS = std::size_t(p.d.T) * p.d.S;
  for (std::size_t n = 0; n < BTS; ++n) {
    const std::size_t b = n / TS, r = n % TS;
    double mean = 0;
    for (std::size_t h = 0; h < H; ++h) mean += p.weights[(b * H + h) * TS + r];
    EXPECT_NEAR(avg[n], mean / H, 1e-6);
  }
}

}  // namespace
}  // namespace attnlab::kernels
