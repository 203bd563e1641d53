// A training step on two cores: the batch in two fixed halves, each half's
// forward and backward on its own copy of the model (the second a replica with
// buffers for half a batch), the gradients added in
// a fixed order. The halves are the same whether one thread runs both or two
// run one each (the second borrows a spare core, spare_cores.hpp), so a row
// trains to the same bytes on any number of threads; what the split changes
// is only the rounding of the batch's sums (the loss, each weight's gradient),
// within the parity tests' tolerances of PyTorch's one-piece batch.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "random/generator.hpp"
#include "threads/helper_thread.hpp"
#include "training/spare_cores.hpp"

namespace attnlab::training {

/// A model whose step can be split: train_step(t, l, B, g) is
/// draw_step(g, B) (every random draw of the whole batch's step, in
/// PyTorch's order: dropout masks, or nothing) then train_step_drawn(t, l, B);
/// take_step_draws(other, first, b) copies rows [first, first + b) of what
/// `other` drew; replica(b) is a model of the same weights with buffers for
/// b sequences (it trains the second half).
template <class M>
concept SplittableModel = std::move_constructible<M> &&
    requires(M m, const M& other, random::Generator& g, const std::int32_t* t, int b) {
      { m.train_step_drawn(t, t, b) } -> std::same_as<float>;
      m.draw_step(g, b);
      m.take_step_draws(other, b, b);
      { other.replica(b) } -> std::same_as<M>;
    };

/// How many copies of a Model a fit() with `split` holds: 2 when it splits
/// (the second sized by replica_batch).
template <class M>
constexpr int model_copies(bool split) {
  return SplittableModel<M> && split ? 2 : 1;
}

/// The batch capacity of the replica that trains the second half of a
/// split step of up to `batch_size` sequences: floor(batch_size / 2), at least 1.
constexpr int replica_batch(int batch_size) { return batch_size / 2 > 1 ? batch_size / 2 : 1; }

/// fit()'s step. For a SplittableModel with `split`, the batch of B
/// sequences splits into the first ceil(B/2) and the rest; the loss is
/// (L0·B0 + L1·B1) / B and the gradient (B0/B)·g0 + (B1/B)·g1, as the mean
/// over the whole batch is. Anything else runs model.train_step unchanged.
template <class Model>
class StepRunner {
 public:
  /// batch_size: the largest batch operator() is given.
  StepRunner(Model& model, bool split, int batch_size) : model_(model) {
    if constexpr (SplittableModel<Model>)
      if (split) replica_.emplace(model.replica(replica_batch(batch_size)));
  }

  /// tokens (B, length), labels (B); returns the mean loss. The gradients
  /// are added into model.params.grads(), which must be zero on entry when
  /// the step splits (fit() zeroes them before every step): the halves'
  /// sum is weighted as a whole.
  float operator()(const std::int32_t* tokens, const std::int32_t* labels, int B, int length, random::Generator& g) {
    if constexpr (SplittableModel<Model>) {
      if (replica_) return split_step(tokens, labels, B, length, g);
    }
    return model_.train_step(tokens, labels, B, g);
  }

 private:
  float split_step(const std::int32_t* tokens, const std::int32_t* labels, int B, int length, random::Generator& g)
    requires SplittableModel<Model>
  {
    Model& second = *replica_;
    const int b0 = (B + 1) / 2, b1 = B - b0;
    model_.draw_step(g, B);
    if (b1 == 0) return model_.train_step_drawn(tokens, labels, B);
    second.take_step_draws(model_, b0, b1);
    std::copy(model_.params.values().begin(), model_.params.values().end(), second.params.values().begin());
    second.params.zero_grad();
    std::vector<float>& grad = model_.params.grads();
    float l0 = 0, l1 = 0;
    auto first_half = [&] { l0 = model_.train_step_drawn(tokens, labels, b0); };
    auto second_half = [&] { l1 = second.train_step_drawn(tokens + static_cast<std::size_t>(b0) * length, labels + b0, b1); };
    if (borrow_spare_core()) {
      struct Return {
        ~Return() { return_spare_core(); }
      } give_back;
      helper_.run_beside(second_half, first_half);
    } else {
      first_half();
      second_half();
    }
    const float w0 = static_cast<float>(b0) / static_cast<float>(B), w1 = static_cast<float>(b1) / static_cast<float>(B);
    const float* g1 = second.params.grads().data();
    for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = w0 * grad[i] + w1 * g1[i];
    return static_cast<float>((static_cast<double>(l0) * b0 + static_cast<double>(l1) * b1) / B);
  }

  Model& model_;
  std::optional<Model> replica_;
  threads::HelperThread helper_;
};

}  // namespace attnlab::training
