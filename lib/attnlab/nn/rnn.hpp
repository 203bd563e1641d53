// nn.RNN, nn.GRU and nn.LSTM over xtensor: one layer, one direction, with
// biases and a zero initial state (torch/nn/modules/rnn.py). The maths is
// lib/kernels/rnn.hpp, gru.hpp, lstm.hpp (batch-first kernels; a sequence-first
// input is transposed once per call).
//
//   attnlab::nn::LSTM lstm(attnlab::nn::LSTMOptions(8, 64).batch_first(true), gen);
//   auto [output, h_n, c_n] = lstm.forward(x);     // output (N, L, 64), h_n, c_n (1, N, 64)
#pragma once

#include <vector>

#include "attnlab/nn/module.hpp"
#include "attnlab/options.hpp"

namespace attnlab::nn {

/// The constructor arguments attnlab supports (num_layers=1,
/// bidirectional=False, bias=True, nonlinearity='tanh', as the course uses).
struct RNNOptions {
  RNNOptions(int input_size, int hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  ATTNLAB_ARG(int, input_size);
  ATTNLAB_ARG(int, hidden_size);
  ATTNLAB_ARG(bool, batch_first) = false;  // false: (L, N, I), PyTorch's default
};
using GRUOptions = RNNOptions;
using LSTMOptions = RNNOptions;

/// output (L, N, H) or (N, L, H): every hidden state; h_n (1, N, H): the
/// last; c_n (1, N, H): the LSTM's last cell state (empty for RNN and GRU).
struct RNNOutput {
  Tensor<3> output, h_n, c_n;
};

/// Which cell: RNN (tanh), GRU (gates r, z, n) or LSTM (gates i, f, g, o).
enum class RecurrentCell { rnn, gru, lstm };

/// The shared module. Parameters weight_ih_l0 (G·H, I), weight_hh_l0 (G·H, H),
/// bias_ih_l0 (G·H), bias_hh_l0 (G·H) with G = 1, 3, 4, initialised
/// uniform(±1/sqrt(H)) from `gen` as PyTorch does. Throws
/// std::invalid_argument for sizes below 1.
class Recurrent : public Module {
 public:
  Recurrent(RecurrentCell cell, const RNNOptions& options, Generator& gen, const Scope& scope = {});

  /// Runs the whole sequence from a zero state; throws std::invalid_argument
  /// naming the shape when the last dimension is not input_size.
  RNNOutput forward(const Tensor<3>& input);
  /// Backward through time of the last forward: given d(loss)/d(output) (its
  /// shape; add a gradient of h_n into its last step), ADDS the parameter
  /// gradients and returns d(loss)/d(input). Pass the forward's input again.
  /// c_n carries no gradient here.
  Tensor<3> backward(const Tensor<3>& grad_output, const Tensor<3>& input);

  const RNNOptions& options() const { return o_; }
  TensorView<2> weight_ih_l0() const;
  TensorView<2> weight_hh_l0() const;
  TensorView<1> bias_ih_l0() const;
  TensorView<1> bias_hh_l0() const;

 private:
  int gates() const;
  RecurrentCell cell_;
  RNNOptions o_;
  std::size_t w_ih_, w_hh_, b_ih_, b_hh_;
  int last_B_ = 0, last_T_ = 0;
  std::vector<float> cache_, scratch_;
};

/// nn.RNN(input_size, hidden_size): h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh).
class RNN : public Recurrent {
 public:
  RNN(const RNNOptions& options, Generator& gen, const Scope& scope = {})
      : Recurrent(RecurrentCell::rnn, options, gen, scope) {}
};
/// nn.GRU(input_size, hidden_size).
class GRU : public Recurrent {
 public:
  GRU(const GRUOptions& options, Generator& gen, const Scope& scope = {})
      : Recurrent(RecurrentCell::gru, options, gen, scope) {}
};
/// nn.LSTM(input_size, hidden_size).
class LSTM : public Recurrent {
 public:
  LSTM(const LSTMOptions& options, Generator& gen, const Scope& scope = {})
      : Recurrent(RecurrentCell::lstm, options, gen, scope) {}
};

}  // namespace attnlab::nn
