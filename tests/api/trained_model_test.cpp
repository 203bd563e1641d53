// A model trained in PyTorch, saved with numpy.save per state_dict tensor,
// loads into attnlab's public modules and reproduces PyTorch's logits:
// data/models/trained_positions/ (scripts/make_trained_model_golden.py: the
// course's positions classifier after 3 epochs, validation accuracy 0.9960).
// The model is apps/example/positions_classifier.hpp, built from public
// modules only. Then the weights go out again through save_state_dict and
// come back bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <unistd.h>

#include <xtensor/xnpy.hpp>
#include <xtensor/xsort.hpp>

#include "positions_classifier.hpp"

namespace {

const std::string kDir = std::string(ATTNLAB_DATA_DIR) + "/models/trained_positions";

TEST(TrainedModel, PyTorchTrainedWeightsReproducePyTorchsLogits) {
  attnlab::Generator gen(0);
  example::PositionsClassifier model(gen);
  attnlab::load_state_dict(*model.store, kDir + "/state_dict");
  const xt::xtensor<std::int32_t, 2> tokens = xt::load_npy<std::int32_t>(kDir + "/tokens.npy");
  const attnlab::Tensor<2> want = xt::load_npy<float>(kDir + "/logits.npy");
  const xt::xtensor<std::int32_t, 1> labels = xt::load_npy<std::int32_t>(kDir + "/labels.npy");
  const attnlab::Tensor<2> got = model.forward(tokens);
  ASSERT_EQ(got.shape(), want.shape());
  // float32 with other summation orders: logits up to |3| agree to 1.9e-6
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::fmax(worst, std::fabs(got.flat(i) - want.flat(i)));
  EXPECT_LE(worst, 1e-5) << "max |attnlab - PyTorch| over 256 x 2 logits";
  // and the trained model is a trained model: it classifies the sequences
  const xt::xtensor<std::size_t, 1> predicted = xt::argmax(got, 1);
  std::size_t right = 0;
  for (std::size_t b = 0; b < labels.size(); ++b) right += predicted(b) == std::size_t(labels(b));
  EXPECT_GE(right, 250u) << "of 256";
}

TEST(TrainedModel, SavedStateDictLoadsBackBitForBit) {
  attnlab::Generator gen(0);
  example::PositionsClassifier a(gen), b(gen);
  attnlab::load_state_dict(*a.store, kDir + "/state_dict");
  const auto dir = std::filesystem::temp_directory_path() / ("attnlab_state_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  attnlab::save_state_dict(*a.store, dir);
  ASSERT_NE(a.store->values(), b.store->values());
  attnlab::load_state_dict(*b.store, dir);
  EXPECT_EQ(a.store->values(), b.store->values());
  // numpy's view of what we wrote: the same bytes as PyTorch's file for a float32 tensor
  const attnlab::Tensor<2> ours = xt::load_npy<float>((dir / "attn.in_proj_weight.npy").string());
  const attnlab::Tensor<2> theirs = xt::load_npy<float>(kDir + "/state_dict/attn.in_proj_weight.npy");
  EXPECT_EQ(ours, theirs);
  std::filesystem::remove_all(dir);
}

}  // namespace
