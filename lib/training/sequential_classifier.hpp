// Lets training::fit() train a public nn::Sequential (transformer_encoder)
// on the course's task like the course's own models: the tokens (B, T) of a
// batch become one-hot rows (B, T, vocab) — the dense projection of a one-hot
// token is its embedding — the model maps them to logits (B, K), and the loss
// is the course's cross-entropy. Dropout inside the model draws from the
// generator fit() passes to train_step, as PyTorch draws it from the global one.
//
//   attnlab::Generator gen(0);
//   auto model = attnlab::nn::transformer_encoder(10, 32, 4, 64, 1, 2, gen, 8);
//   attnlab::training::SequentialClassifier c(model, 10, 8);
//   auto result = attnlab::training::fit(c, train, val, {});   // result.accuracy
#pragma once

#include <cstdint>
#include <vector>

#include "attnlab/nn/sequential.hpp"

namespace attnlab::training {

class SequentialClassifier {
 public:
  /// model maps (B, length, vocab) to (B, K); it is used, not copied (it must
  /// outlive this). Throws std::invalid_argument for vocab or length below 1, or
  /// a model whose output for that input is not (B, K).
  SequentialClassifier(nn::Sequential& model, int vocab, int length);

  kernels::Parameters& params;

  /// fit()'s training step: one-hot, forward in training mode (dropout from
  /// g), mean cross-entropy, backward ADDING into params.grads(); the loss.
  float train_step(const std::int32_t* tokens, const std::int32_t* labels, int B, random::Generator& g);
  /// Evaluation-mode logits (B, K) into out.
  void logits(const std::int32_t* tokens, int B, float* out);
  std::size_t forward_macs(int B) const;
  int classes() const { return K_; }

 private:
  xt::xarray<float> one_hot(const std::int32_t* tokens, int B) const;
  nn::Sequential& model_;
  int vocab_, length_, K_;
};

}  // namespace attnlab::training
