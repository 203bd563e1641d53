#include "training/sequential_classifier.hpp"

#include <stdexcept>
#include <string>

#include "kernels/cross_entropy.hpp"

namespace attnlab::training {

SequentialClassifier::SequentialClassifier(nn::Sequential& model, int vocab, int length)
    : params(model.store()), model_(model), vocab_(vocab), length_(length) {
  if (vocab < 1 || length < 1)
    throw std::invalid_argument("SequentialClassifier: vocab and length must be >= 1, got " + std::to_string(vocab) +
                                " and " + std::to_string(length));
  const auto out = model.output_shape({1, std::size_t(length), std::size_t(vocab)});
  if (out.size() != 2 || out[0] != 1)
    throw std::invalid_argument("SequentialClassifier: the model maps (B, " + std::to_string(length) + ", " +
                                std::to_string(vocab) + ") to " + shape_string(out) + ", not to (B, K) logits");
  K_ = int(out[1]);
}

xt::xarray<float> SequentialClassifier::one_hot(const std::int32_t* tokens, int B) const {
  xt::xarray<float> x = xt::zeros<float>({std::size_t(B), std::size_t(length_), std::size_t(vocab_)});
  for (std::size_t i = 0; i < std::size_t(B) * length_; ++i) {
    if (tokens[i] < 0 || tokens[i] >= vocab_)
      throw std::out_of_range("SequentialClassifier: token " + std::to_string(tokens[i]) + " is outside [0, " +
                              std::to_string(vocab_) + ")");
    x.data()[i * vocab_ + std::size_t(tokens[i])] = 1.0f;
  }
  return x;
}

float SequentialClassifier::train_step(const std::int32_t* tokens, const std::int32_t* labels, int B,
                                       random::Generator& g) {
  model_.train();
  model_.set_generator(g);
  const xt::xarray<float> x = one_hot(tokens, B);
  const xt::xarray<float> logits = model_.forward(x);  // (B, K)
  std::vector<float> probs(logits.size());
  const float loss = kernels::cross_entropy_forward(probs.data(), logits.data(), labels, B, K_);
  xt::xarray<float> dlogits = xt::zeros<float>(logits.shape());
  kernels::cross_entropy_backward(dlogits.data(), 1.0f, probs.data(), labels, B, K_);
  model_.backward(dlogits, x);
  return loss;
}

void SequentialClassifier::logits(const std::int32_t* tokens, int B, float* out) {
  model_.eval();
  const xt::xarray<float> y = model_.forward(one_hot(tokens, B));
  std::copy(y.data(), y.data() + y.size(), out);
}

std::size_t SequentialClassifier::forward_macs(int B) const {
  return model_.forward_macs({std::size_t(B), std::size_t(length_), std::size_t(vocab_)});
}

}  // namespace attnlab::training
