// What nn.RNN, nn.GRU and nn.LSTM share: parameter layout, dimension checks
// and initialisation. The cells themselves are in rnn.hpp, gru.hpp, lstm.hpp.
//
// Letters: B batch, T sequence length, I input size, H hidden size, G gates
// (1 RNN, 3 GRU, 4 LSTM). Every module is PyTorch's single-layer,
// unidirectional, batch_first=True form with zero initial state.
#pragma once

#include <cstddef>

namespace attnlab::random {
class Generator;
}

namespace attnlab::kernels {

/// Gate multipliers: weight_ih_l0 has G·H rows.
inline constexpr int kRnnGates = 1;
inline constexpr int kGruGates = 3;
inline constexpr int kLstmGates = 4;

/// Parameter count of a single-layer unidirectional module, G·H·(I + H + 2):
///   weight_ih_l0 (G·H, I), weight_hh_l0 (G·H, H), bias_ih_l0 (G·H), bias_hh_l0 (G·H),
/// in PyTorch's state_dict order. Throws std::invalid_argument unless
/// G is 1, 3 or 4 and I, H >= 1.
std::size_t recurrent_param_count(int G, int I, int H);

/// Throws std::invalid_argument naming the offending value (e.g.
/// "lstm_forward: hidden size H must be >= 1, got H=0") unless B, T, I, H >= 1.
void check_recurrent_dims(const char* where, int B, int T, int I, int H);

/// PyTorch's RNNBase.reset_parameters for one layer, one direction
/// (docs/torch_rng.md §7): the four tensors in the order weight_ih (G·H, I),
/// weight_hh (G·H, H), bias_ih (G·H), bias_hh (G·H), each filled in C order
/// with uniform_(-k, k), k = 1/sqrt(H) computed in double.
/// Draws G·H·(I + H + 2) 32-bit words from gen.
/// Throws std::invalid_argument unless G is 1, 3 or 4 and I, H >= 1.
/// Source: torch/nn/modules/rnn.py (RNNBase.reset_parameters, 1.13).
void recurrent_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
                    float* bias_hh, int G, int I, int H);

}  // namespace attnlab::kernels
