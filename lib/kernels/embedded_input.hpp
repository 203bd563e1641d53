// A recurrent layer fed straight from an embedding table: nn.Embedding(V, I)
// followed by nn.RNN / nn.GRU / nn.LSTM(I, H), with the table folded into
// the layer's input projection.
//
// Why: the input projection x·W_ih^T + b of every step is one product of
// B·T rows, but when x = emb[ids] its rows are rows of
//   table (V, G·H) = emb.weight (V, I) · W_ih^T + b,
// so V rows of products do the work of B·T (a classifier over 10 digits,
// B·T = 512: a third of an LSTM's training multiply-adds; bench_vs_pytorch's
// rnn_vs_attention). The same holds backwards:
//   dtable[v] = Σ over the rows r with ids[r] = v of dxg[r],
//   dW_ih += dtable^T · emb.weight,   demb += dtable · W_ih.
// Forward values are bit-identical to embedding_forward then the dense layer
// where the product runs on attnlab's sgemm tiles (floats on an AVX2+FMA
// machine: every row is the same chain of multiply-adds over I whatever the
// row count, tensor/sgemm_tiles.hpp), equal to rounding otherwise; backward sums are the same sums grouped by token, so
// gradients agree to rounding (tests/kernels/embedded_input_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnlab::kernels {

/// A layer's input given as token ids and the embedding table that maps them:
/// x[b, t, :] = weight[ids[b·T + t], :], i.e. torch.nn.Embedding's output.
template <class Real>
struct EmbeddedInput {
  const std::int32_t* ids = nullptr;  // (B, T), each in [0, vocab)
  const Real* weight = nullptr;       // the embedding table, emb.weight (vocab, I)
  int vocab = 0;                      // V
  Real* table = nullptr;              // workspace (vocab, G·H): see embedded_table_size
};

/// Elements of EmbeddedInput::table for a layer of G gates (1, 3, 4) and
/// hidden size H: V·G·H. The forward pass leaves the projected table there;
/// the backward pass overwrites it with dtable.
inline std::size_t embedded_table_size(int vocab, int G, int H) {
  return static_cast<std::size_t>(vocab) * static_cast<std::size_t>(G) * static_cast<std::size_t>(H);
}

/// Throws std::invalid_argument, naming `where`, unless N, V, I, GH >= 1, and
/// std::out_of_range naming the position and the id (PyTorch's IndexError)
/// when an id is outside [0, V). The layers' embedded entry points run it
/// before they write anything.
template <class Real>
void check_embedded_input(const char* where, const EmbeddedInput<Real>& inp, int N, int I, int GH);

/// xg (N, GH) rows = table[ids[r]], table (V, GH) = bias (+ bias2 when not
/// null) + weight (V, I) · weight_ih^T (GH, I), added in that order as
/// detail::fill_rows then tensor::gemm with beta 1 (the dense layers' order).
/// inp.table must not overlap xg. Throws as check_embedded_input, before
/// anything is written.
template <class Real>
void embedded_projection_forward(Real* xg, const EmbeddedInput<Real>& inp, const Real* weight_ih, const Real* bias,
                                 const Real* bias2, int N, int I, int GH);

/// Backward of the input side of embedded_projection_forward, given
/// dxg (N, GH) = dLoss/dxg. Overwrites inp.table with dtable (V, GH), then
/// ADDS dtable^T · inp.weight into dweight_ih (GH, I) and dtable · weight_ih
/// into dweight_emb (V, I); either may be null to skip it (both null: nothing
/// is read or written beyond the check). Bias gradients are the caller's
/// (column sums of dxg, as the dense layers take them). inp.table must not
/// overlap dxg or the gradients. Throws as check_embedded_input, before
/// anything is written.
template <class Real>
void embedded_projection_backward(Real* dweight_emb, Real* dweight_ih, const Real* dxg,
                                  const EmbeddedInput<Real>& inp, const Real* weight_ih, int N, int I, int GH);

}  // namespace attnlab::kernels
