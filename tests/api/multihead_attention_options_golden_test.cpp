// nn.MultiheadAttention through the public door, every option against
// PyTorch 1.13: data/kernels/mha_options.json, written by
// scripts/make_mha_options_goldens.py. For each case (kdim/vdim != embed_dim,
// bias=False, add_bias_kv, add_zero_attn, alone and together, both layouts,
// 2-D and 3-D bool/float masks with key_padding_mask, dropout):
//  - the state_dict right after Generator(0) and the constructor equals
//    PyTorch's after torch.manual_seed(0), bit for bit, names and shapes in
//    PyTorch's order, and the next generator word matches (the draw count);
//  - forward (averaged and per-head weights, need_weights=false) and backward
//    (every parameter gradient and the inputs') match PyTorch's within
//    expect_close_to_torch's rule (1e-5 relative + 1e-6 of the tensor's peak).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attnlab/nn/multihead_attention.hpp"
#include "support/golden.hpp"
#include "support/layer_parity.hpp"

namespace attnlab::nn {
namespace {

using attnlab::testing::load_golden;
using attnlab::testing::layers::expect_bits_equal;
using attnlab::testing::layers::expect_close_to_torch;

std::vector<float> floats(const nlohmann::json& j) {  // "-inf" is stored as a string
  std::vector<float> v;
  for (const auto& x : j) v.push_back(x.is_string() ? -std::numeric_limits<float>::infinity() : x.get<float>());
  return v;
}

template <std::size_t N, class T = float>
xt::xtensor<T, N> tensor(const std::vector<T>& values, const std::array<std::size_t, N>& shape) {
  xt::xtensor<T, N> t = xt::xtensor<T, N>::from_shape(shape);
  EXPECT_EQ(t.size(), values.size());
  std::copy(values.begin(), values.end(), t.begin());
  return t;
}

MultiheadAttentionOptions options_of(const nlohmann::json& o) {
  return MultiheadAttentionOptions(o["embed_dim"], o["num_heads"])
      .kdim(o["kdim"])
      .vdim(o["vdim"])
      .bias(o["bias"])
      .add_bias_kv(o["add_bias_kv"])
      .add_zero_attn(o["add_zero_attn"])
      .batch_first(o["batch_first"])
      .dropout(o["dropout"]);
}

const nlohmann::json& cases() {
  static const nlohmann::json j = load_golden("kernels/mha_options.json")["cases"];
  return j;
}

class MhaOptionsParity : public ::testing::TestWithParam<std::size_t> {};

TEST_P(MhaOptionsParity, InitIsPyTorchsBitForBit) {
  const auto& c = cases()[GetParam()];
  SCOPED_TRACE(c["name"].get<std::string>());
  Generator gen(0);
  MultiheadAttention m(options_of(c["options"]), gen);
  const auto params = m.named_parameters();
  const auto& want = c["init"]["state_dict"];
  ASSERT_EQ(params.size(), want.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i].name, want[i]["name"].get<std::string>());
    EXPECT_EQ(params[i].shape, want[i]["shape"].get<std::vector<std::size_t>>()) << params[i].name;
    expect_bits_equal(params[i].name, params[i].value, floats(want[i]["values"]));
  }
  EXPECT_EQ(gen.random() % (1u << 31), c["init"]["next_word_mod_2_31"].get<std::uint32_t>())
      << "the constructor must draw exactly as many words as PyTorch's";
}

TEST_P(MhaOptionsParity, ForwardAndBackwardMatchPyTorch) {
  const auto& c = cases()[GetParam()];
  const auto& f = c["forward"];
  const auto& o = c["options"];
  SCOPED_TRACE(c["name"].get<std::string>());
  Generator gen(0);
  MultiheadAttention m(options_of(o), gen);
  for (const auto& p : f["state_dict"]) {  // the golden's parameters (biases made nonzero)
    const std::vector<float> v = floats(p["values"]);
    for (const auto& mine : m.named_parameters())
      if (mine.name == p["name"].get<std::string>()) std::copy(v.begin(), v.end(), mine.value);
  }
  const std::size_t B = c["B"], T = c["T"], S = c["S"], E = o["embed_dim"], H = o["num_heads"];
  const std::size_t kdim = o["kdim"], vdim = o["vdim"];
  const bool bf = o["batch_first"];
  auto shape = [&](std::size_t L, std::size_t D) {
    return bf ? std::array<std::size_t, 3>{B, L, D} : std::array<std::size_t, 3>{L, B, D};
  };
  const Tensor<3> query = tensor<3>(floats(f["query"]), shape(T, E));
  const Tensor<3> key_own = tensor<3>(floats(f["key"]), shape(S, kdim));
  const Tensor<3> value_own = tensor<3>(floats(f["value"]), shape(S, vdim));
  const Tensor<3> g = tensor<3>(floats(f["g"]), shape(T, E));
  const bool self = f["self"], kv_same = f["kv_same"];
  const Tensor<3>& key = self ? query : key_own;
  const Tensor<3>& value = self ? query : kv_same ? key : value_own;

  MultiheadAttentionForwardOptions fo;
  xt::xtensor<bool, 2> kpm;
  if (f.contains("key_padding_mask")) {
    kpm = xt::xtensor<bool, 2>::from_shape({B, S});
    auto v = f["key_padding_mask"].get<std::vector<int>>();
    std::copy(v.begin(), v.end(), kpm.begin());
    fo.key_padding_mask = kpm;
  }
  const bool mask_3d = f["attn_mask_3d"];
  xt::xtensor<bool, 2> mb2;
  xt::xtensor<bool, 3> mb3;
  xt::xtensor<float, 2> mf2;
  xt::xtensor<float, 3> mf3;
  if (f.contains("attn_mask_bool")) {
    auto v = f["attn_mask_bool"].get<std::vector<int>>();
    if (mask_3d) {
      mb3 = xt::xtensor<bool, 3>::from_shape({B * H, T, S});
      std::copy(v.begin(), v.end(), mb3.begin());
      fo.attn_mask = mb3;
    } else {
      mb2 = xt::xtensor<bool, 2>::from_shape({T, S});
      std::copy(v.begin(), v.end(), mb2.begin());
      fo.attn_mask = mb2;
    }
  }
  if (f.contains("attn_mask_float")) {
    if (mask_3d) {
      mf3 = tensor<3>(floats(f["attn_mask_float"]), {B * H, T, S});
      fo.attn_mask = mf3;
    } else {
      mf2 = tensor<2>(floats(f["attn_mask_float"]), {T, S});
      fo.attn_mask = mf2;
    }
  }
  const bool dropout = f.contains("dropout_seed");
  if (dropout) gen.manual_seed(f["dropout_seed"].get<std::uint64_t>());

  auto [out, w] = m.forward(query, key, value, fo);
  if (dropout) {  // braced: EXPECT_EQ is an if/else of its own (-Wdangling-else)
    EXPECT_EQ(gen.random() % (1u << 31), f["next_word_mod_2_31"].get<std::uint32_t>())
        << "one w64() per attention weight, appended keys included";
  }
  EXPECT_EQ(shape_of(out), f["out_shape"].get<std::vector<std::size_t>>());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(shape_of(*w), f["weights_avg_shape"].get<std::vector<std::size_t>>());
  expect_close_to_torch("attn_output", out.data(), floats(f["out"]));
  expect_close_to_torch("weights (averaged)", w->data(), floats(f["weights_avg"]));

  m.zero_grad();
  const MultiheadAttentionGradients grads = m.backward(g, query, key, value);
  for (const auto& p : m.named_parameters())
    expect_close_to_torch("d " + p.name, p.grad, floats(f["grads"][p.name]));
  expect_close_to_torch("d query", grads.query.data(), floats(f["d_query"]));
  if (!self) {
    if (kv_same) {  // one tensor as key and value: autograd's gradient is the sum
      Tensor<3> sum = grads.key + grads.value;
      expect_close_to_torch("d key (= value)", sum.data(), floats(f["d_key"]));
    } else {
      expect_close_to_torch("d key", grads.key.data(), floats(f["d_key"]));
      expect_close_to_torch("d value", grads.value.data(), floats(f["d_value"]));
    }
  }

  // average_attn_weights=false (the same dropout mask again), need_weights=false
  if (dropout) gen.manual_seed(f["dropout_seed"].get<std::uint64_t>());
  fo.average_attn_weights = false;
  auto [out2, per_head] = m.forward(query, key, value, fo);
  ASSERT_TRUE(per_head.has_value());
  EXPECT_EQ(shape_of(*per_head), f["weights_head_shape"].get<std::vector<std::size_t>>());
  expect_close_to_torch("weights (per head)", per_head->data(), floats(f["weights_head"]));
  EXPECT_EQ(out2, out);
  if (dropout) gen.manual_seed(f["dropout_seed"].get<std::uint64_t>());
  fo.need_weights = false;
  auto [out3, none] = m.forward(query, key, value, fo);
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(out3, out);

  // Eval mode without weights takes the flash path (tiles, an online
  // softmax): the weighted path's output up to rounding, every mask and
  // option alike, and PyTorch's where dropout did not act; nothing is kept
  // for backward.
  m.eval();
  fo.need_weights = true;
  auto [weighted, w_eval] = m.forward(query, key, value, fo);
  fo.need_weights = false;
  auto [flash, no_weights] = m.forward(query, key, value, fo);
  EXPECT_FALSE(no_weights.has_value());
  ASSERT_EQ(flash.shape(), weighted.shape());
  expect_close_to_torch("attn_output (flash) against the weighted path", flash.data(),
                        std::vector<float>(weighted.begin(), weighted.end()));
  if (!dropout) expect_close_to_torch("attn_output (flash)", flash.data(), floats(f["out"]));
  EXPECT_THROW(m.backward(g, query, key, value), std::logic_error);
  m.train();
}

INSTANTIATE_TEST_SUITE_P(Cases, MhaOptionsParity, ::testing::Range<std::size_t>(0, 10),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return cases()[info.param]["name"].get<std::string>();
                         });

TEST(MhaOptionsParity, EveryGoldenCaseIsRun) { EXPECT_EQ(cases().size(), 10u); }

}  // namespace
}  // namespace attnlab::nn
