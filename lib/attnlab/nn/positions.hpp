// Telling attention where each step sits (data/sources/attention_page.txt §5; Vaswani et al. 2017,
// §3.5): the fixed sinusoidal table, a layer that adds it, and a learned table.
//
//   attnlab::nn::sinusoidal_positions(4, 4)(1, 0);   // sin(1) = 0.8415; row 1 is [0.8415, 0.5403, 0.01, 0.9999]
//   attnlab::nn::LearnedPositions m(4, 3, gen);      // weight (4, 3), std 0.02
//   m.forward(attnlab::Tensor<2>(xt::zeros<float>({2, 3})));   // == the first 2 rows of weight
//
// Letters: B batch, T length, C = d_model, L = max_len.
#pragma once

#include <map>

#include "attnlab/nn/cache.hpp"
#include "attnlab/nn/module.hpp"

namespace attnlab::nn {

/// The sinusoidal table (length, d_model): even columns sin(p · rate_k), odd
/// columns cos(p · rate_k), rate_k = exp(-ln(10000) · 2k / d_model), in float32
/// as the course's PyTorch code computes it (data/course/12_sinusoidal.py).
/// Any d_model >= 1: an odd width has one more sin column than cos columns,
/// and the cos columns take the first floor(d_model / 2) rates, so no column
/// is lost or shifted. Throws std::invalid_argument for length < 0 or d_model < 1.
Tensor<2> sinusoidal_positions(int length, int d_model);

/// x + sinusoidal_positions(T, C): the fixed table added to a sequence, for any
/// width C (taken from the input). No parameters. Throws std::invalid_argument
/// for a sequence longer than max_len (naming both numbers).
class AddPositions : public Module {
 public:
  explicit AddPositions(int max_len, const Scope& scope = {});
  AddPositions(int max_len, Generator&, const Scope& scope) : AddPositions(max_len, scope) {}  // for Sequential

  /// (B, T, C) or (T, C), T <= max_len.
  Tensor<3> forward(const Tensor<3>& x);
  Tensor<2> forward(const Tensor<2>& x);
  /// d(loss)/dx = d(loss)/dy (an addition of constants).
  Tensor<3> backward(const Tensor<3>& grad_output, const Tensor<3>& x);
  Tensor<2> backward(const Tensor<2>& grad_output, const Tensor<2>& x);

  /// A step adds row t = cache.length() of the table (refused once t reaches
  /// max_len); nothing is cached.
  void add_to_cache(Cache&) const {}
  void step_rows(float* out, const float* x, int C, Cache& cache, StepCursor& cursor);

  int max_len() const { return max_len_; }

 private:
  const Tensor<2>& table(int C);
  void check_length(const char* where, std::size_t T) const;
  int max_len_;
  std::map<int, Tensor<2>> tables_;  // (max_len, C) per width seen
};

/// A learned table P of shape (max_len, d_model) added to a sequence: its
/// first T rows to a sequence of T steps. Parameter "weight" (the page's P),
/// initialised nn.init.normal_(weight, std=0.02) from `gen` (the page's
/// choice; the paper gives none). Throws std::invalid_argument for sizes below
/// 1, for a width other than d_model, and for a sequence longer than max_len
/// (naming both numbers).
class LearnedPositions : public Module {
 public:
  LearnedPositions(int max_len, int d_model, Generator& gen, const Scope& scope = {});

  Tensor<3> forward(const Tensor<3>& x);
  Tensor<2> forward(const Tensor<2>& x);
  /// ADDS d(weight)[t] += sum over the batch of d(loss)/dy[:, t]; returns
  /// d(loss)/dx = d(loss)/dy.
  Tensor<3> backward(const Tensor<3>& grad_output, const Tensor<3>& x);
  Tensor<2> backward(const Tensor<2>& grad_output, const Tensor<2>& x);

  void add_to_cache(Cache&) const {}
  void step_rows(float* out, const float* x, int C, Cache& cache, StepCursor& cursor);

  /// P (max_len, d_model), writable.
  TensorView<2> weight() const;
  int max_len() const { return max_len_; }
  int d_model() const { return d_model_; }

 private:
  void check(const char* where, const std::vector<std::size_t>& shape) const;
  int max_len_, d_model_;
  std::size_t w_;
};

}  // namespace attnlab::nn
