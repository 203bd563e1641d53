// torch_mha (the nn.MultiheadAttention page, data/sources/torch_mha_page.txt) against PyTorch 1.13: data/experiments/torch_mha.json,
// written by scripts/make_torch_mha_goldens.py running the page's own code.
// For the default options and for kdim/vdim != embed_dim, bias=False,
// add_bias_kv and add_zero_attn, alone and together, every figure under
// --format json's "data" equals PyTorch's: shapes and state_dict names and
// shapes exactly, every output and weight to 1e-6, and the by-hand
// difference (PyTorch's is 0.0, ours float32 rounding noise) to 1e-6.
#include <gtest/gtest.h>

#include <cmath>

#include "experiments/course_run.hpp"
#include "spec/spec_error.hpp"
#include "support/golden.hpp"

namespace attnlab::testing {
namespace {

// Walks two JSON values side by side; numbers within `tol`, everything else equal.
void expect_same(const nlohmann::json& ours, const nlohmann::json& torch, const std::string& path, double tol,
                 std::size_t& compared) {
  if (torch.is_number_float() || (torch.is_number() && ours.is_number_float())) {
    ASSERT_TRUE(ours.is_number()) << path;
    EXPECT_LE(std::abs(ours.get<double>() - torch.get<double>()), tol)
        << path << ": ours " << ours.get<double>() << " PyTorch " << torch.get<double>();
    ++compared;
  } else if (torch.is_array() || torch.is_object()) {
    ASSERT_EQ(ours.type(), torch.type()) << path;
    ASSERT_EQ(ours.size(), torch.size()) << path;
    if (torch.is_array())
      for (std::size_t i = 0; i < torch.size(); ++i)
        expect_same(ours[i], torch[i], path + "/" + std::to_string(i), tol, compared);
    else
      for (const auto& [k, v] : torch.items()) {
        ASSERT_TRUE(ours.contains(k)) << path << "/" << k;
        expect_same(ours[k], v, path + "/" + k, tol, compared);
      }
  } else {
    EXPECT_EQ(ours, torch) << path;
    ++compared;
  }
}

const nlohmann::json& golden() {
  static const nlohmann::json j = load_golden("experiments/torch_mha.json");
  return j;
}

class TorchMha : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TorchMha, EveryFigureEqualsPyTorchs) {
  const auto& c = golden()["cases"][GetParam()];
  SCOPED_TRACE(c["name"].get<std::string>());
  const experiments::Report r = run_kind("torch_mha", c["overrides"]);
  std::size_t compared = 0;
  expect_same(r.data, c["data"], "", 1e-6, compared);
  EXPECT_GT(compared, 300u);  // every number of the case, not a sample
}

INSTANTIATE_TEST_SUITE_P(Cases, TorchMha, ::testing::Range<std::size_t>(0, 7),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return golden()["cases"][info.param]["name"].get<std::string>();
                         });

TEST(TorchMha, PrintsThePagesShapesStateDictAndMaskedWeights) {
  const std::string text = run_kind("torch_mha").text;
  // the page: print(tuple(A.shape), tuple(W.shape))  # (3, 1, 100) (1, 3, 3)
  EXPECT_NE(text.find("\n(3, 1, 100) (1, 3, 3)\n"), std::string::npos) << text;
  // the page's state_dict lines, f'{k:20s}  shape: {tuple(v.shape)}'
  EXPECT_NE(text.find("in_proj_weight        shape: (300, 100)\n"
                      "in_proj_bias          shape: (300,)\n"
                      "out_proj.weight       shape: (100, 100)\n"
                      "out_proj.bias         shape: (100,)\n"),
            std::string::npos)
      << text;
  // key_padding_mask [[F, T, F, T]] zeroes columns 1 and 3; the -inf corners zero (0,0), (0,3), (2,0), (2,3)
  EXPECT_NE(text.find("[[[0.5009, 0.0000, 0.4991, 0.0000],\n"
                      "  [0.5000, 0.0000, 0.5000, 0.0000],\n"
                      "  [0.5036, 0.0000, 0.4964, 0.0000]]]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[[[0.0000, 0.4975, 0.5025, 0.0000],\n"
                      "  [0.2479, 0.2390, 0.2478, 0.2652],\n"
                      "  [0.0000, 0.4925, 0.5075, 0.0000]]]\n"),
            std::string::npos)
      << text;
}

TEST(TorchMha, SeparateProjectionsShowInTheStateDict) {
  const std::string text = run_kind("torch_mha", {{"kdim", 40}, {"vdim", 60}, {"add_bias_kv", true}}).text;
  EXPECT_NE(text.find("q_proj_weight         shape: (100, 100)\n"
                      "k_proj_weight         shape: (100, 40)\n"
                      "v_proj_weight         shape: (100, 60)\n"
                      "in_proj_bias          shape: (300,)\n"
                      "bias_k                shape: (1, 1, 100)\n"
                      "bias_v                shape: (1, 1, 100)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(3, 1, 100) (1, 3, 4)\n"), std::string::npos) << "the appended bias key is attended";
}

TEST(TorchMha, RefusesHeadsThatDoNotDivideEmbedDim) {
  EXPECT_THROW(run_kind("torch_mha", {{"num_heads", 7}}), spec::SpecError);
}

}  // namespace
}  // namespace attnlab::testing
