// Weights in and out through .npy folders: the round trip, and every refusal
// of load_state_dict (missing key, extra key, wrong shape, wrong dtype, not a
// folder), each naming what is wrong and leaving the parameters untouched.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <xtensor/xnpy.hpp>

#include "attnlab/attnlab.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("attnlab_sd_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::string refusal(const nn::Module& m, const fs::path& dir) {
  try {
    load_state_dict(m, dir);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(StateDict, ModuleRoundTripKeepsPyTorchsKeys) {
  TempDir tmp;
  Generator gen(0);
  nn::MultiheadAttention a(nn::MultiheadAttentionOptions(8, 2).kdim(3).add_bias_kv(true), gen);
  save_state_dict(a, tmp.path);
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(tmp.path)) files.insert(e.path().filename().string());
  EXPECT_EQ(files, (std::set<std::string>{"q_proj_weight.npy", "k_proj_weight.npy", "v_proj_weight.npy",
                                          "in_proj_bias.npy", "bias_k.npy", "bias_v.npy", "out_proj.weight.npy",
                                          "out_proj.bias.npy"}));
  const auto bk = xt::load_npy<float>((tmp.path / "bias_k.npy").string());
  EXPECT_EQ(shape_of(bk), (std::vector<std::size_t>{1, 1, 8}));
  nn::MultiheadAttention b(nn::MultiheadAttentionOptions(8, 2).kdim(3).add_bias_kv(true), gen);
  EXPECT_NE(a.store().values(), b.store().values());
  load_state_dict(b, tmp.path);
  EXPECT_EQ(a.store().values(), b.store().values());
}

TEST(StateDict, RefusesMissingExtraWrongShapeAndDtypeNamingThem) {
  TempDir tmp;
  Generator gen(0);
  nn::Linear fc(nn::LinearOptions(4, 3), gen);
  save_state_dict(fc, tmp.path);
  const std::vector<float> before = fc.store().values();
  const std::string where = "load_state_dict: " + tmp.path.string() + ": ";

  fs::rename(tmp.path / "bias.npy", tmp.path / "bias.npy.away");
  EXPECT_EQ(refusal(fc, tmp.path), where + "missing key(s) bias (no <key>.npy file)");
  fs::rename(tmp.path / "bias.npy.away", tmp.path / "bias.npy");

  xt::dump_npy((tmp.path / "running_mean.npy").string(), xt::xtensor<float, 1>{1, 2, 3});
  EXPECT_EQ(refusal(fc, tmp.path), where + "unexpected key(s) running_mean");
  fs::remove(tmp.path / "running_mean.npy");

  xt::dump_npy((tmp.path / "weight.npy").string(), xt::xtensor<float, 2>(xt::zeros<float>({4, 3})));
  EXPECT_EQ(refusal(fc, tmp.path), where + "weight has shape (4, 3), expected (3, 4)");

  xt::dump_npy((tmp.path / "weight.npy").string(), xt::xtensor<double, 2>(xt::zeros<double>({3, 4})));
  EXPECT_EQ(refusal(fc, tmp.path),
            where + "weight holds dtype '<f8', expected float32 ('<f4'): save it as v.float().numpy()");

  { std::ofstream(tmp.path / "weight.npy") << "not numpy"; }
  EXPECT_NE(refusal(fc, tmp.path).find("weight.npy is not a readable .npy file"), std::string::npos);

  EXPECT_EQ(fc.store().values(), before) << "a refused load must change nothing";
  EXPECT_NE(refusal(fc, tmp.path / "nowhere").find("not a folder"), std::string::npos);
}

TEST(StateDict, SaveRefusesAFolderOfSomethingElse) {
  TempDir tmp;
  fs::create_directories(tmp.path);
  xt::dump_npy((tmp.path / "other.weight.npy").string(), xt::xtensor<float, 1>{1});
  Generator gen(0);
  nn::Linear fc(nn::LinearOptions(2, 2), gen);
  EXPECT_THROW(save_state_dict(fc, tmp.path), std::invalid_argument);
  EXPECT_FALSE(fs::exists(tmp.path / "weight.npy")) << "refused before writing anything";
  { std::ofstream(tmp.path / "file") << "x"; }
  EXPECT_THROW(save_state_dict(fc, tmp.path / "file"), std::invalid_argument);
}

TEST(StateDict, ModelPrefixesAreThePyTorchModelsKeys) {
  auto store = std::make_shared<nn::ParameterStore>();
  Generator gen(0);
  nn::Embedding tok(nn::EmbeddingOptions(10, 4), gen, {store, "tok"});
  nn::MultiheadAttention attn(nn::MultiheadAttentionOptions(4, 2).batch_first(true), gen, {store, "attn"});
  nn::Linear head(nn::LinearOptions(4, 2), gen, {store, "head"});
  std::vector<std::string> keys;
  for (const auto& p : state_dict(*store)) keys.push_back(p.name);
  EXPECT_EQ(keys, (std::vector<std::string>{"tok.weight", "attn.in_proj_weight", "attn.in_proj_bias",
                                            "attn.out_proj.weight", "attn.out_proj.bias", "head.weight",
                                            "head.bias"}));
  // a module's own state_dict keys are relative to it, as module.state_dict() in PyTorch
  EXPECT_EQ(attn.named_parameters()[0].name, "in_proj_weight");
  EXPECT_EQ(store->count(), 40u + 4u * 12 + 12 + 16 + 4 + 8 + 2);
}

}  // namespace
}  // namespace attnlab
