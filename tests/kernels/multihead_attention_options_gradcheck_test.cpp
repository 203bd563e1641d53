// Finite-difference checks of the multi-head attention options beyond the
// course's layer: separate q/k/v projections with kdim/vdim != embed_dim,
// bias=False, add_bias_kv, add_zero_attn, sequence-first rows and 3-D masks,
// alone and together, in double precision (central differences, eps 1e-6).
// Every parameter the options create gets its own check, bias_k and bias_v
// included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/multihead_attention.hpp"
#include "support/gradcheck.hpp"

namespace attnlab::kernels {
namespace {

using attnlab::testing::expect_gradient_close;
using attnlab::testing::fill_pseudo_random;
using attnlab::testing::numerical_gradient;

struct OptCase {
  std::string name;
  int B, T, S, C, H, kdim, vdim;
  bool bias = true, bias_kv = false, zero_attn = false, batch_first = true;
  bool self = false;        // query = key = value, one pointer
  bool key_padding = false, float_mask = false, bool_mask = false, mask_3d = false, dropout = false;
};

std::ostream& operator<<(std::ostream& os, const OptCase& c) { return os << c.name; }

struct OptProblem {
  OptCase c;
  MhaDims d;
  std::vector<double> query, key, value, w, g;  // w: every parameter, one buffer
  std::size_t q_w, k_w, v_w, in_b, bias_k, bias_v, out_w, out_b;
  std::vector<std::uint8_t> kpm, mask_bool, keep;
  std::vector<double> mask_float, out, weights, cache;
  MhaMasks<double> masks;
  MhaDropout<double> drop;

  explicit OptProblem(const OptCase& oc)
      : c(oc),
        d(mha_dims(oc.B, oc.T, oc.S, oc.C, oc.H,
                   {.kdim = oc.kdim, .vdim = oc.vdim, .batch_first = oc.batch_first, .add_bias_kv = oc.bias_kv,
                    .add_zero_attn = oc.zero_attn})) {
    const std::size_t B = d.B, T = d.T, S = d.S, C = d.C, Sp = d.keys();
    query.resize(B * T * C);
    fill_pseudo_random(query.data(), query.size(), 1);
    key.resize(B * S * d.kdim);
    value.resize(B * S * d.vdim);
    fill_pseudo_random(key.data(), key.size(), 2);
    fill_pseudo_random(value.data(), value.size(), 3);
    // parameter offsets, in the state_dict's order
    std::size_t n = 0;
    q_w = n, n += C * C;
    k_w = n, n += C * d.kdim;
    v_w = n, n += C * d.vdim;
    in_b = n, n += c.bias ? 3 * C : 0;
    bias_k = n, n += c.bias_kv ? C : 0;
    bias_v = n, n += c.bias_kv ? C : 0;
    out_w = n, n += C * C;
    out_b = n, n += c.bias ? C : 0;
    w.resize(n);
    fill_pseudo_random(w.data(), w.size(), 4, 0.7);
    g.resize(B * T * C);
    fill_pseudo_random(g.data(), g.size(), 8);
    const std::size_t mask_rows = (c.mask_3d ? B * d.H : 1) * T;
    if (c.key_padding) {
      kpm.assign(B * S, 0);
      if (B > 1) kpm[1 * S + (S - 1)] = 1;  // batch 1, when there is one
      kpm[0 * S + 1] = 1;
      masks.key_padding = kpm.data();
    }
    if (c.bool_mask) {
      mask_bool.assign(mask_rows * S, 0);
      for (std::size_t r = 0; r < mask_rows; ++r) mask_bool[r * S + (r + 1) % S] = 1;
      masks.attn_bool = mask_bool.data();
    }
    if (c.float_mask) {
      mask_float.resize(mask_rows * S);
      fill_pseudo_random(mask_float.data(), mask_float.size(), 9, 1.5);
      mask_float[0] = -std::numeric_limits<double>::infinity();
      masks.attn_float = mask_float.data();
    }
    masks.attn_per_head = c.mask_3d;
    if (c.dropout) {
      keep.resize(B * d.H * T * Sp);
      unsigned s = 777;
      for (auto& k : keep) {
        s = s * 1664525u + 1013904223u;
        k = ((s >> 16) % 4) != 0;
      }
      drop = {keep.data(), 1.0 / 0.75};
    }
    out.resize(B * T * C);
    weights.resize(B * d.H * T * Sp);
    cache.resize(mha_cache_size(d));
  }

  template <class P, class Ptr>
  P roles(Ptr* base) const {
    P p;
    p.q_proj_weight = base + q_w;
    p.k_proj_weight = base + k_w;
    p.v_proj_weight = base + v_w;
    p.in_proj_bias = c.bias ? base + in_b : nullptr;
    p.bias_k = c.bias_kv ? base + bias_k : nullptr;
    p.bias_v = c.bias_kv ? base + bias_v : nullptr;
    p.out_proj_weight = base + out_w;
    p.out_proj_bias = c.bias ? base + out_b : nullptr;
    return p;
  }
  const double* k_ptr() const { return c.self ? query.data() : key.data(); }
  const double* v_ptr() const { return c.self ? query.data() : value.data(); }

  double loss() {
    mha_forward<double>(out.data(), weights.data(), MhaWeights::per_head, cache.data(), query.data(), k_ptr(), v_ptr(),
                        masks, drop, roles<MhaParams<double>>(w.data()), d);
    double l = 0;
    for (std::size_t n = 0; n < out.size(); ++n) l += out[n] * g[n];
    return l;
  }
};

class MhaOptionsGradcheck : public ::testing::TestWithParam<OptCase> {};

TEST_P(MhaOptionsGradcheck, EveryGradientMatchesFiniteDifferences) {
  OptProblem p(GetParam());
  p.loss();
  for (double x : p.out) ASSERT_TRUE(std::isfinite(x));
  std::vector<double> dq(p.query.size(), 0.0), dk(p.key.size(), 0.0), dv(p.value.size(), 0.0),
      dw(p.w.size(), 0.0), scratch(mha_scratch_size(p.d));
  double* gk = p.c.self ? dq.data() : dk.data();
  double* gv = p.c.self ? dq.data() : dv.data();
  mha_backward<double>(dq.data(), gk, gv, p.roles<MhaGrads<double>>(dw.data()), scratch.data(), p.g.data(),
                       p.cache.data(), p.query.data(), p.k_ptr(), p.v_ptr(), p.drop,
                       p.roles<MhaParams<double>>(p.w.data()), p.d);
  auto loss = [&p] { return p.loss(); };
  SCOPED_TRACE(p.c.name);
  expect_gradient_close("query", dq.data(), numerical_gradient(loss, p.query.data(), p.query.size()));
  if (!p.c.self) {
    expect_gradient_close("key", dk.data(), numerical_gradient(loss, p.key.data(), p.key.size()));
    expect_gradient_close("value", dv.data(), numerical_gradient(loss, p.value.data(), p.value.size()));
  }
  // every parameter at once: one flat buffer in the state_dict's layout
  expect_gradient_close("parameters", dw.data(), numerical_gradient(loss, p.w.data(), p.w.size()));
  if (p.c.bias_kv) {  // bias_k and bias_v do carry gradient (not a vacuous zero)
    double sum = 0;
    for (int c = 0; c < p.d.C; ++c) sum += std::abs(dw[p.bias_k + c]) + std::abs(dw[p.bias_v + c]);
    EXPECT_GT(sum, 1e-3);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Options, MhaOptionsGradcheck,
    ::testing::Values(
        OptCase{.name = "kdim_vdim", .B = 2, .T = 3, .S = 4, .C = 4, .H = 2, .kdim = 3, .vdim = 5},
        OptCase{.name = "no_bias", .B = 2, .T = 3, .S = 4, .C = 4, .H = 2, .kdim = 4, .vdim = 4, .bias = false},
        OptCase{.name = "bias_kv", .B = 2, .T = 3, .S = 4, .C = 4, .H = 2, .kdim = 4, .vdim = 4, .bias_kv = true},
        OptCase{.name = "zero_attn", .B = 2, .T = 3, .S = 4, .C = 4, .H = 2, .kdim = 4, .vdim = 4,
                .zero_attn = true},
        OptCase{.name = "seq_first_self", .B = 2, .T = 3, .S = 3, .C = 4, .H = 2, .kdim = 4, .vdim = 4,
                .batch_first = false, .self = true},
        OptCase{.name = "seq_first_bias_kv_zero_attn", .B = 3, .T = 2, .S = 3, .C = 4, .H = 2, .kdim = 4, .vdim = 4,
                .bias_kv = true, .zero_attn = true, .batch_first = false, .key_padding = true, .float_mask = true},
        OptCase{.name = "all_batch_first", .B = 2, .T = 3, .S = 4, .C = 4, .H = 2, .kdim = 3, .vdim = 2,
                .bias = false, .bias_kv = true, .zero_attn = true, .key_padding = true,
                .bool_mask = true},
        OptCase{.name = "all_seq_first_3d_masks_dropout", .B = 2, .T = 3, .S = 4, .C = 4, .H = 2, .kdim = 3,
                .vdim = 2, .bias_kv = true, .zero_attn = true, .batch_first = false,
                .key_padding = true, .float_mask = true, .bool_mask = true, .mask_3d = true, .dropout = true},
        OptCase{.name = "self_3d_float_mask", .B = 2, .T = 3, .S = 3, .C = 4, .H = 2, .kdim = 4, .vdim = 4,
                .self = true, .float_mask = true, .mask_3d = true}),
    [](const ::testing::TestParamInfo<OptCase>& info) { return info.param.name; });

// An appended zero key scores exactly 0 for every query, and its value is 0:
// with every input key padded, a row attends only to the zero key, so its
// weight there is 1 and the head output is 0 (the layer gives out_proj.bias).
TEST(MhaOptions, ZeroAttnKeyTakesAllWeightWhenEveryInputKeyIsPadded) {
  OptProblem p(OptCase{.name = "zero_only", .B = 1, .T = 2, .S = 3, .C = 4, .H = 2, .kdim = 4, .vdim = 4,
                       .zero_attn = true, .key_padding = true});
  for (auto& k : p.kpm) k = 1;
  p.loss();
  const int Sp = p.d.keys();
  ASSERT_EQ(Sp, 4);
  for (int r = 0; r < p.d.H * p.d.T; ++r) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(p.weights[r * Sp + j], 0.0);
    EXPECT_EQ(p.weights[r * Sp + 3], 1.0);
  }
  for (int i = 0; i < p.d.T; ++i)
    for (int c = 0; c < p.d.C; ++c) EXPECT_DOUBLE_EQ(p.out[i * p.d.C + c], p.w[p.out_b + c]);
}

}  // namespace
}  // namespace attnlab::kernels
