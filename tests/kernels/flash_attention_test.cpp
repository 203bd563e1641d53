// The flash forward (nn/flash_attention.hpp) against the weighted path
// (mha_forward, which writes every softmax weight) and against PyTorch 1.13's
// goldens (data/kernels/mha_case_*.json, scripts/make_mha_goldens.py).
//
// Table-driven: each case names its shape, options, masks and tile sizes, and
// is printed on failure. Tiles of a few rows make T and S fall off the tile
// edges (T not a multiple of the block), make the running maximum grow across
// key blocks, and put fully blocked rows, fully blocked tiles and appended
// keys at tile boundaries.
#include "kernels/flash_attention.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/multihead_attention.hpp"
#include "random/generator.hpp"
#include "support/golden.hpp"

namespace attnlab::kernels {
namespace {

using attnlab::testing::as_floats;
using attnlab::testing::load_golden;

struct FlashCase {
  std::string name;
  int B, T, S, C, H;
  FlashBlocks blocks;
  bool self = true;  // query = key = value, one pointer (T == S)
  int kdim = 0, vdim = 0;
  bool batch_first = true, bias_kv = false, zero_attn = false, bias = true;
  bool key_padding = false, causal = false, bool_mask = false, float_mask = false, per_head = false;
  bool blocked_rows = false;  // every key of batch 0 is padding, and query 1 of the bool mask sees nothing
  float scale = 1.f;          // of the inputs: large scores make the running maximum move a lot
};

std::ostream& operator<<(std::ostream& os, const FlashCase& c) {
  return os << c.name << " (B=" << c.B << " T=" << c.T << " S=" << c.S << " C=" << c.C << " H=" << c.H
            << ", blocks " << c.blocks.q << "x" << c.blocks.k << ")";
}

struct Problem {
  MhaDims d;
  std::vector<float> query, key, value, w, mask_float;
  std::vector<std::uint8_t> kpm, mask_bool;
  MhaMasks<float> masks;
  MhaParams<float> p;

  explicit Problem(const FlashCase& c)
      : d(mha_dims(c.B, c.T, c.S, c.C, c.H,
                   {.kdim = c.kdim, .vdim = c.vdim, .batch_first = c.batch_first, .add_bias_kv = c.bias_kv,
                    .add_zero_attn = c.zero_attn})) {
    random::Generator g(7);
    const std::size_t B = d.B, T = d.T, S = d.S, C = d.C;
    auto normal = [&](std::vector<float>& v, std::size_t n, float s) {
      v.resize(n);
      g.normal(v.data(), n);
      for (float& x : v) x *= s;
    };
    normal(query, B * T * C, c.scale);
    if (!c.self) {
      normal(key, B * S * d.kdim, c.scale);
      normal(value, B * S * d.vdim, 1.f);
    }
    // every parameter in one buffer: q, k, v weights back to back (packed when kdim = vdim = C)
    const std::size_t qw = 0, kw = qw + C * C, vw = kw + C * d.kdim, ib = vw + C * d.vdim, bk = ib + 3 * C,
                      bv = bk + C, ow = bv + C, ob = ow + C * C;
    normal(w, ob + C, 0.3f);
    p = {w.data() + qw, w.data() + kw, w.data() + vw, c.bias ? w.data() + ib : nullptr,
         c.bias_kv ? w.data() + bk : nullptr, c.bias_kv ? w.data() + bv : nullptr, w.data() + ow,
         c.bias ? w.data() + ob : nullptr};

    const std::size_t blocks = c.per_head ? B * d.H : 1;
    if (c.key_padding || c.blocked_rows) {
      kpm.assign(B * S, 0);
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < S; ++j) kpm[b * S + j] = c.blocked_rows ? b == 0 : (j * 7 + b) % 5 == 3;
      masks.key_padding = kpm.data();
    }
    if (c.bool_mask || c.blocked_rows) {
      mask_bool.assign(blocks * T * S, 0);
      for (std::size_t n = 0; n < mask_bool.size(); ++n) mask_bool[n] = (n * 11) % 7 == 2;
      if (c.blocked_rows && T > 1)  // query 1 sees no key, in every block
        for (std::size_t m = 0; m < blocks; ++m) std::fill_n(mask_bool.begin() + (m * T + 1) * S, S, 1);
      masks.attn_bool = mask_bool.data();
    }
    if (c.float_mask) {
      normal(mask_float, blocks * T * S, 1.f);
      for (std::size_t n = 0; n < mask_float.size(); n += 9) mask_float[n] = -std::numeric_limits<float>::infinity();
      masks.attn_float = mask_float.data();
    }
    masks.attn_per_head = c.per_head;
    masks.causal = c.causal;
  }
  const float* q() const { return query.data(); }
  const float* k() const { return key.empty() ? query.data() : key.data(); }
  const float* v() const { return value.empty() ? query.data() : value.data(); }

  std::vector<float> weighted() const {
    std::vector<float> out(std::size_t(d.B) * d.T * d.C), cache(mha_cache_size(d));
    mha_forward<float>(out.data(), nullptr, MhaWeights::none, cache.data(), q(), k(), v(), masks, {}, p, d);
    return out;
  }
  std::vector<float> flash(FlashBlocks blocks, int threads = 1) const {
    std::vector<float> out(std::size_t(d.B) * d.T * d.C), ws(mha_flash_workspace_size(d, blocks, threads));
    mha_flash_forward<float>(out.data(), ws.data(), q(), k(), v(), masks, p, d, blocks, threads);
    return out;
  }
};

// max |a - b| over the tensor, relative to the larger of 1 and max |b|
double worst_difference(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double largest = 1, worst = 0;
  for (float x : b) largest = std::max(largest, std::abs(double(x)));
  for (std::size_t n = 0; n < a.size(); ++n) {
    const double diff = std::abs(double(a[n]) - b[n]);
    worst = std::isnan(diff) ? std::numeric_limits<double>::infinity() : std::max(worst, diff);
  }
  return worst / largest;
}

class FlashMatchesWeighted : public ::testing::TestWithParam<FlashCase> {};

TEST_P(FlashMatchesWeighted, Within1e5) {
  const FlashCase& c = GetParam();
  const Problem pr(c);
  const auto want = pr.weighted();
  const auto got = pr.flash(c.blocks);
  EXPECT_LE(worst_difference(got, want), 1e-5);
  // the default tiles give the same answer as well
  EXPECT_LE(worst_difference(pr.flash({}), want), 1e-5);
}

FlashCase make(std::string name, int B, int T, int S, int C, int H, FlashBlocks blocks) {
  FlashCase c;
  c.name = std::move(name);
  c.B = B, c.T = T, c.S = S, c.C = C, c.H = H, c.blocks = blocks;
  c.self = T == S;
  return c;
}

std::vector<FlashCase> cases() {
  std::vector<FlashCase> v;
  v.push_back(make("course_layer", 2, 6, 6, 32, 4, {4, 4}));
  v.push_back(make("one_step", 3, 1, 1, 16, 2, {4, 8}));  // T = 1
  v.push_back(make("ragged_tiles", 2, 37, 37, 16, 2, {8, 16}));  // 37 = 4·8 + 5 = 2·16 + 5
  v.push_back(make("one_by_one_tiles", 1, 9, 9, 8, 2, {1, 1}));
  v.push_back(make("long", 1, 700, 700, 64, 4, {64, 512}));  // default tiles, two key blocks
  v.push_back(make("head_size_24", 2, 13, 13, 48, 2, {5, 6}));
  {
    auto c = make("large_scores", 2, 40, 40, 16, 4, {8, 8});  // the running maximum jumps between key blocks
    c.scale = 6.f;
    v.push_back(c);
  }
  {
    auto c = make("cross", 2, 5, 13, 16, 2, {2, 4});
    c.self = false;
    v.push_back(c);
  }
  {
    auto c = make("cross_sequence_first", 3, 11, 7, 16, 4, {4, 3});
    c.self = false, c.batch_first = false;
    v.push_back(c);
  }
  {
    auto c = make("self_sequence_first", 2, 10, 10, 16, 2, {3, 4});
    c.batch_first = false;
    v.push_back(c);
  }
  {
    auto c = make("key_padding", 3, 21, 21, 16, 2, {4, 8});
    c.key_padding = true;
    v.push_back(c);
  }
  {
    auto c = make("causal", 2, 33, 33, 16, 4, {8, 8});  // whole key tiles after the queries are skipped
    c.causal = true;
    v.push_back(c);
  }
  {
    auto c = make("long_causal", 1, 700, 700, 64, 4, {64, 512});  // tiles cut short at the diagonal
    c.causal = true;
    v.push_back(c);
  }
  {
    auto c = make("causal_key_padding", 2, 19, 19, 16, 2, {4, 5});
    c.causal = true, c.key_padding = true;
    v.push_back(c);
  }
  {
    auto c = make("bool_and_float", 2, 14, 14, 16, 2, {4, 4});
    c.bool_mask = true, c.float_mask = true;
    v.push_back(c);
  }
  {
    auto c = make("per_head_masks", 2, 9, 12, 16, 4, {4, 5});
    c.self = false, c.bool_mask = true, c.float_mask = true, c.per_head = true;
    v.push_back(c);
  }
  {
    auto c = make("fully_blocked_rows", 2, 11, 11, 16, 2, {4, 4});  // batch 0 all padding, query 1 blind
    c.blocked_rows = true;
    v.push_back(c);
  }
  {
    auto c = make("fully_blocked_causal_tiles", 2, 17, 17, 16, 2, {4, 4});
    c.blocked_rows = true, c.causal = true;
    v.push_back(c);
  }
  {
    // appended keys are never masked, so the blocked rows still see bias_k and the zero key
    auto c = make("bias_kv_zero_attn_masked", 2, 7, 9, 16, 2, {3, 4});
    c.self = false, c.bias_kv = true, c.zero_attn = true, c.blocked_rows = true, c.causal = true;
    v.push_back(c);
  }
  {
    // rows enough for threads to split every projection: B·T = 150 queries,
    // keys and values in 3 blocks of 61 input rows, each followed by its 2 appended keys
    auto c = make("cross_many_rows_bias_kv", 3, 50, 61, 16, 2, {16, 32});
    c.self = false, c.bias_kv = true, c.zero_attn = true, c.key_padding = true;
    v.push_back(c);
  }
  {
    auto c = make("kdim_vdim_many_rows_sequence_first", 4, 40, 30, 16, 2, {16, 16});
    c.self = false, c.kdim = 5, c.vdim = 11, c.batch_first = false;
    v.push_back(c);
  }
  {
    auto c = make("kdim_vdim_no_bias", 2, 6, 8, 16, 4, {4, 3});
    c.self = false, c.kdim = 5, c.vdim = 11, c.bias = false, c.key_padding = true;
    v.push_back(c);
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Cases, FlashMatchesWeighted, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<FlashCase>& info) { return info.param.name; });

TEST(FlashAttention, FullyBlockedRowOutputsTheOutProjectionBias) {
  FlashCase c = make("blocked", 2, 5, 5, 8, 2, {2, 2});
  c.blocked_rows = true;
  const Problem pr(c);
  const auto out = pr.flash(c.blocks);
  // batch 0: every key is padding, so y = 0 and out = out_proj.bias on every row
  for (int i = 0; i < c.T; ++i)
    for (int e = 0; e < c.C; ++e) EXPECT_EQ(out[std::size_t(i) * c.C + e], pr.p.out_proj_bias[e]) << i << "," << e;
}

// Heads split over threads, including more threads than heads and splits
// that cut a batch's heads apart: the output bytes are the single thread's.
TEST(FlashAttention, OutputBytesAreTheSameOnAnyNumberOfThreads) {
  for (const FlashCase& c : cases()) {
    const Problem pr(c);
    const auto one = pr.flash(c.blocks);
    for (int threads : {2, 3, 5, 64}) {
      const auto many = pr.flash(c.blocks, threads);
      ASSERT_EQ(many.size(), one.size());
      EXPECT_EQ(std::memcmp(many.data(), one.data(), one.size() * sizeof(float)), 0)
          << c << " on " << threads << " threads";
    }
  }
  EXPECT_THROW(mha_flash_workspace_size(mha_dims(1, 4, 4, 8, 2), {}, 0), std::invalid_argument);
}

TEST(FlashAttention, WorkspaceIsLinearInLength) {
  // B·T·C + 2·B·S·C + B·T·C, one 64 × 512 tile with m and l (2·64), one
  // head's keys transposed (D = 16 rows of S + 8): no T × S term
  const MhaDims d = mha_dims(8, 8192, 8192, 64, 4);
  EXPECT_EQ(mha_flash_workspace_size(d), 4u * 8 * 8192 * 64 + 64 * 512 + 128 + 16 * (8192 + 8));
  EXPECT_THROW(mha_flash_workspace_size(d, {0, 4}), std::invalid_argument);
}

// PyTorch 1.13's attn_output for nn.MultiheadAttention(32, 4, batch_first=True),
// need_weights=False being the same output (scripts/make_mha_goldens.py);
// the same tolerance rule as multihead_attention_golden_test.cpp: relative per
// element with a floor at 10% of the largest magnitude.
struct GoldenCase {
  const char* name;
  bool key_padding, causal, float_mask, cross;
};
class FlashMatchesPyTorch : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FlashMatchesPyTorch, Output) {
  const GoldenCase c = GetParam();
  const auto in = load_golden("kernels/mha_inputs.json");
  const auto gold = load_golden(std::string("kernels/mha_case_") + c.name + ".json");
  const int B = in["B"], T = in["T"], C = in["C"], H = in["H"], S = c.cross ? in["S_cross"].get<int>() : T;
  const auto x = as_floats(in["x"]), key = as_floats(in["key"]), value = as_floats(in["value"]);
  const auto in_w = as_floats(in["in_proj_weight"]), in_b = as_floats(in["in_proj_bias"]);
  const auto out_w = as_floats(in["out_proj_weight"]), out_b = as_floats(in["out_proj_bias"]);
  std::vector<float> float_mask;
  for (const auto& v : in["float_attn_mask"])
    float_mask.push_back(v.is_string() ? -std::numeric_limits<float>::infinity() : v.get<float>());
  std::vector<std::uint8_t> kpm;
  for (const auto& v : in["key_padding_mask"]) kpm.push_back(v.get<int>() != 0);
  MhaMasks<float> masks;
  if (c.key_padding) masks.key_padding = kpm.data();
  masks.causal = c.causal;  // the golden's attn_mask = triu(ones(T, T), 1)
  if (c.float_mask) masks.attn_float = float_mask.data();

  const MhaDims d = mha_dims(B, T, S, C, H);
  for (FlashBlocks blocks : {FlashBlocks{}, FlashBlocks{4, 4}}) {
    std::vector<float> out(std::size_t(B) * T * C), ws(mha_flash_workspace_size(d, blocks));
    mha_flash_forward<float>(out.data(), ws.data(), x.data(), c.cross ? key.data() : x.data(),
                             c.cross ? value.data() : x.data(), masks,
                             mha_packed(in_w.data(), in_b.data(), out_w.data(), out_b.data(), C), d, blocks);
    const auto torch = as_floats(gold["out"]);
    ASSERT_EQ(out.size(), torch.size());
    double largest = 0;
    for (float t : torch) largest = std::max(largest, std::abs(double(t)));
    for (std::size_t n = 0; n < out.size(); ++n)
      ASSERT_LE(std::abs(double(out[n]) - torch[n]), 1e-5 * std::max(std::abs(double(torch[n])), 0.1 * largest))
          << c.name << " out[" << n << "] blocks " << blocks.q << "x" << blocks.k;
  }
}

INSTANTIATE_TEST_SUITE_P(Goldens, FlashMatchesPyTorch,
                         ::testing::Values(GoldenCase{"plain", false, false, false, false},
                                           GoldenCase{"key_padding", true, false, false, false},
                                           GoldenCase{"causal", false, true, false, false},
                                           GoldenCase{"float_mask", false, false, true, false},
                                           GoldenCase{"both", true, true, false, false},
                                           GoldenCase{"cross", false, false, false, true}),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace attnlab::kernels
