// The course's recurrent last-state classifier (day 1 script 01 `LastState`,
// day 7 script 18 `Recurrent`):
//   out, _ = rnn(emb(x)); logits = head(out[:, -1, :])
// Everything the sequence holds must pass through the last hidden state:
// the bottleneck the chapter measures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/embedded_input.hpp"
#include "kernels/parameters.hpp"
#include "random/generator.hpp"

namespace attnlab::models {

enum class Cell { rnn, gru, lstm };

/// "rnn", "gru", "lstm" -> Cell; throws std::invalid_argument otherwise.
Cell cell_from_name(const std::string& name);

struct RecurrentClassifierConfig {
  Cell cell = Cell::lstm;
  int vocab = 10;        // nn.Embedding(10, 32)
  int embed = 32;
  int hidden_size = 64;  // nn.LSTM(32, hidden, batch_first=True)
  int n_classes = 2;
};

/// Parameters named and ordered as PyTorch's state_dict: emb.weight (V, E),
/// rnn.weight_ih_l0 (G·H, E), rnn.weight_hh_l0 (G·H, H), rnn.bias_ih_l0 (G·H),
/// rnn.bias_hh_l0 (G·H), head.weight (K, H), head.bias (K); G = 1, 3, 4 for
/// RNN, GRU, LSTM. Built from `init` in constructor order (emb, rnn, head;
/// docs/torch_rng.md §7), so the weights equal PyTorch's for the same seed.
/// The embedding feeds the cell through its folded form
/// (nn/embedded_input.hpp): forward values are PyTorch's computation bit for
/// bit, the embedding's and weight_ih's gradients are its sums grouped by token.
/// Buffers are sized once for up to max_batch sequences of `length`.
/// Throws std::invalid_argument for non-positive sizes.
class RecurrentClassifier {
 public:
  RecurrentClassifier(const RecurrentClassifierConfig& cfg, random::Generator& init, int max_batch, int length);

  /// Bytes the constructor allocates for these arguments (parameters,
  /// gradients, activations, the cell's cache and scratch), for sizing a
  /// run before it starts; tests/memory holds it to the constructor's.
  static std::size_t memory_bytes(const RecurrentClassifierConfig& cfg, int max_batch, int length);
  /// params.count() of a model built with `cfg`.
  static std::size_t parameter_count(const RecurrentClassifierConfig& cfg);

  kernels::Parameters params;

  /// A model of this one's configuration and weights whose buffers hold
  /// `max_batch` sequences: the copy that trains a split step's second half
  /// (training/split_step.hpp), which never sees more than half a batch,
  /// while this model's buffers also hold the evaluation batch (512 against
  /// 32: a full copy spent a row's first 0.2 s zeroing, copying and
  /// page-faulting buffers it never used). Gradients are zero.
  RecurrentClassifier replica(int max_batch) const;

  /// Forward, mean cross-entropy, backward adding into params.grads();
  /// returns the loss. No dropout, so `g` is not drawn from.
  float train_step(const std::int32_t* tokens, const std::int32_t* labels, int B, random::Generator& g);
  /// The same step in the parts training::StepRunner splits a batch with
  /// (training/split_step.hpp): this step draws nothing, so draw_step and
  /// take_step_draws do nothing, and train_step_drawn is train_step.
  void draw_step(random::Generator&, int) {}
  void take_step_draws(const RecurrentClassifier&, int, int) {}
  float train_step_drawn(const std::int32_t* tokens, const std::int32_t* labels, int B);
  /// Evaluation forward: logits (B, K).
  void logits(const std::int32_t* tokens, int B, float* out);

  /// Multiply-adds of one forward pass on B sequences (nn/cost.hpp): the
  /// model's, as PyTorch computes it. The embedding is folded into the
  /// cell's input projection (nn/embedded_input.hpp), so attnlab performs
  /// V·G·H·E of the B·T·G·H·E input multiply-adds this counts.
  std::size_t forward_macs(int B) const;

 private:
  void forward(const std::int32_t* tokens, int B);
  kernels::EmbeddedInput<float> embedded(const std::int32_t* tokens);  // emb(tokens), folded
  std::size_t emb_, w_ih_, w_hh_, b_ih_, b_hh_, head_w_, head_b_;
  RecurrentClassifierConfig cfg_;
  int max_batch_, T_;
  std::vector<float> table_, out_, cache_, last_, logits_, probs_;  // forward (table_: also the backward's dtable)
  std::vector<float> dlogits_, dlast_, dout_, scratch_;             // backward
};

}  // namespace attnlab::models
