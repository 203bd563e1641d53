#include "attnlab/nn/rnn.hpp"

#include <stdexcept>
#include <string>

#include <xtensor/xmanipulation.hpp>

#include "kernels/gru.hpp"
#include "kernels/lstm.hpp"
#include "kernels/rnn.hpp"

namespace attnlab::nn {

namespace {
const char* cell_name(RecurrentCell c) { return c == RecurrentCell::rnn ? "RNN" : c == RecurrentCell::gru ? "GRU" : "LSTM"; }
}  // namespace

int Recurrent::gates() const {
  return cell_ == RecurrentCell::rnn ? kernels::kRnnGates : cell_ == RecurrentCell::gru ? kernels::kGruGates : kernels::kLstmGates;
}

Recurrent::Recurrent(RecurrentCell cell, const RNNOptions& o, Generator& gen, const Scope& scope)
    : Module(scope), cell_(cell), o_(o) {
  const int I = o.input_size(), H = o.hidden_size(), G = gates();
  if (I < 1 || H < 1)
    throw std::invalid_argument(std::string(cell_name(cell)) + ": input_size and hidden_size must be >= 1, got " +
                                std::to_string(I) + " and " + std::to_string(H));
  w_ih_ = register_parameter("weight_ih_l0", {G * H, I});
  w_hh_ = register_parameter("weight_hh_l0", {G * H, H});
  b_ih_ = register_parameter("bias_ih_l0", {G * H});
  b_hh_ = register_parameter("bias_hh_l0", {G * H});
  kernels::recurrent_init(gen, value(w_ih_), value(w_hh_), value(b_ih_), value(b_hh_), G, I, H);
}

RNNOutput Recurrent::forward(const Tensor<3>& input) {
  const std::string where = std::string(cell_name(cell_)) + "::forward";
  const bool bf = o_.batch_first();
  check_shape(where, "input", shape_of(input), {-1, -1, o_.input_size()},
              bf ? std::vector<std::string>{"N", "L"} : std::vector<std::string>{"L", "N"});
  const int B = int(input.shape()[bf ? 0 : 1]), T = int(input.shape()[bf ? 1 : 0]), I = o_.input_size(),
            H = o_.hidden_size();
  // the kernels are batch-first: a sequence-first input is transposed once
  Tensor<3> x_bf;
  const float* x = input.data();
  if (!bf) {
    x_bf = xt::transpose(input, {1, 0, 2});
    x = x_bf.data();
  }
  Tensor<3> out = Tensor<3>::from_shape({std::size_t(B), std::size_t(T), std::size_t(H)});
  const float *wi = value(w_ih_), *wh = value(w_hh_), *bi = value(b_ih_), *bh = value(b_hh_);
  RNNOutput r;
  switch (cell_) {
    case RecurrentCell::rnn:
      cache_.resize(kernels::rnn_cache_size(B, T, H));
      kernels::rnn_forward(out.data(), cache_.data(), x, wi, wh, bi, bh, B, T, I, H);
      break;
    case RecurrentCell::gru:
      cache_.resize(kernels::gru_cache_size(B, T, H));
      kernels::gru_forward(out.data(), cache_.data(), x, wi, wh, bi, bh, B, T, I, H);
      break;
    case RecurrentCell::lstm:
      cache_.resize(kernels::lstm_cache_size(B, T, H));
      kernels::lstm_forward(out.data(), cache_.data(), x, wi, wh, bi, bh, B, T, I, H);
      r.c_n = Tensor<3>::from_shape({1, std::size_t(B), std::size_t(H)});
      kernels::lstm_last_cell(r.c_n.data(), static_cast<const float*>(cache_.data()), B, T, H);
      break;
  }
  r.h_n = Tensor<3>::from_shape({1, std::size_t(B), std::size_t(H)});
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) r.h_n(0, b, h) = out(b, T - 1, h);
  r.output = bf ? std::move(out) : Tensor<3>(xt::transpose(out, {1, 0, 2}));
  last_B_ = B;
  last_T_ = T;
  return r;
}

Tensor<3> Recurrent::backward(const Tensor<3>& grad_output, const Tensor<3>& input) {
  const std::string where = std::string(cell_name(cell_)) + "::backward";
  if (last_B_ == 0) throw std::logic_error(where + ": no forward() to go back through");
  const bool bf = o_.batch_first();
  const int B = last_B_, T = last_T_, I = o_.input_size(), H = o_.hidden_size();
  check_shape(where, "input", shape_of(input), bf ? std::vector<long>{B, T, I} : std::vector<long>{T, B, I});
  check_shape(where, "grad_output", shape_of(grad_output),
              bf ? std::vector<long>{B, T, H} : std::vector<long>{T, B, H});
  Tensor<3> x_bf, dy_bf;
  const float* x = input.data();
  const float* dy = grad_output.data();
  if (!bf) {
    x_bf = xt::transpose(input, {1, 0, 2});
    dy_bf = xt::transpose(grad_output, {1, 0, 2});
    x = x_bf.data();
    dy = dy_bf.data();
  }
  Tensor<3> dx = xt::zeros<float>({std::size_t(B), std::size_t(T), std::size_t(I)});
  const float *wi = value(w_ih_), *wh = value(w_hh_);
  float *gwi = grad(w_ih_), *gwh = grad(w_hh_), *gbi = grad(b_ih_), *gbh = grad(b_hh_);
  switch (cell_) {
    case RecurrentCell::rnn:
      scratch_.resize(kernels::rnn_scratch_size(B, T, H));
      kernels::rnn_backward(dx.data(), gwi, gwh, gbi, gbh, scratch_.data(), dy, cache_.data(), x, wi, wh, B, T, I, H);
      break;
    case RecurrentCell::gru:
      scratch_.resize(kernels::gru_scratch_size(B, T, H));
      kernels::gru_backward(dx.data(), gwi, gwh, gbi, gbh, scratch_.data(), dy, cache_.data(), x, wi, wh, B, T, I, H);
      break;
    case RecurrentCell::lstm:
      scratch_.resize(kernels::lstm_scratch_size(B, T, H));
      kernels::lstm_backward(dx.data(), gwi, gwh, gbi, gbh, scratch_.data(), dy, cache_.data(), x, wi, wh, B, T, I, H);
      break;
  }
  if (bf) return dx;
  return Tensor<3>(xt::transpose(dx, {1, 0, 2}));
}

TensorView<2> Recurrent::weight_ih_l0() const {
  return view<2>(value(w_ih_), {std::size_t(gates() * o_.hidden_size()), std::size_t(o_.input_size())});
}
TensorView<2> Recurrent::weight_hh_l0() const {
  return view<2>(value(w_hh_), {std::size_t(gates() * o_.hidden_size()), std::size_t(o_.hidden_size())});
}
TensorView<1> Recurrent::bias_ih_l0() const {
  return view<1>(value(b_ih_), {std::size_t(gates() * o_.hidden_size())});
}
TensorView<1> Recurrent::bias_hh_l0() const {
  return view<1>(value(b_hh_), {std::size_t(gates() * o_.hidden_size())});
}

}  // namespace attnlab::nn
