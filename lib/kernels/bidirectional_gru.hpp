// A bidirectional single-layer GRU over padded sentences of different
// lengths, as torch.nn.GRU(I, H, batch_first=True, bidirectional=True) run on
// pack_padded_sequence(x, lengths) and unpacked with pad_packed_sequence:
// the forward direction reads w_1 .. w_L, the backward direction w_L .. w_1
// (it starts at each row's own last word, never at the padding), and
// out[b, t] = [→h_t ; ←h_t] for t < L, zeros for t >= L.
//
// Source: Bahdanau et al. 2015 §3.2 (the annotation h_j = [→h_j ; ←h_j]);
// the torch.nn.GRU and torch.nn.utils.rnn.pack_padded_sequence docs (1.13).
// The backward direction is the forward kernel (gru.hpp) run on each row
// reversed within its length, which is what packing achieves.
// Parameters in PyTorch's state_dict order: weight_ih_l0 (3H, I),
// weight_hh_l0 (3H, H), bias_ih_l0 (3H), bias_hh_l0 (3H), then the same four
// with the suffix _reverse; initialised by gru_init twice, in that order.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnlab::kernels {

/// The eight tensors of one layer: forward direction, then reverse.
template <class Real>
struct BiGruWeights {
  const Real *weight_ih, *weight_hh, *bias_ih, *bias_hh;
  const Real *weight_ih_reverse, *weight_hh_reverse, *bias_ih_reverse, *bias_hh_reverse;
};
template <class Real>
struct BiGruGrads {
  Real *weight_ih, *weight_hh, *bias_ih, *bias_hh;
  Real *weight_ih_reverse, *weight_hh_reverse, *bias_ih_reverse, *bias_hh_reverse;
};

/// Cache (forward) and scratch (backward) sizes for B rows of width S.
/// Throws std::invalid_argument unless B, S, I, H >= 1.
std::size_t bigru_cache_size(int B, int S, int I, int H);
std::size_t bigru_scratch_size(int B, int S, int I, int H);

/// out (B, S, 2H), written (zeros past each length); cache bigru_cache_size;
/// inp (B, S, I); lengths (B), each in [1, S].
/// Throws std::invalid_argument for a length outside [1, S] (naming the row).
template <class Real>
void bigru_forward(Real* out, Real* cache, const Real* inp, const std::int32_t* lengths, const BiGruWeights<Real>& w,
                   int B, int S, int I, int H);

/// Given dout (B, S, 2H) (entries past a length are ignored), ADDS into dinp
/// (B, S, I) (may be null) and every non-null gradient; scratch
/// bigru_scratch_size; cache, inp and lengths as the forward had them.
template <class Real>
void bigru_backward(Real* dinp, const BiGruGrads<Real>& g, Real* scratch, const Real* dout, const Real* cache,
                    const Real* inp, const std::int32_t* lengths, const BiGruWeights<Real>& w, int B, int S, int I,
                    int H);

}  // namespace attnlab::kernels
