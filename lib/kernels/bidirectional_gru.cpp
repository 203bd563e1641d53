#include "kernels/bidirectional_gru.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/gru.hpp"
#include "kernels/recurrent_common.hpp"

namespace attnlab::kernels {

namespace {

// The cache: each direction's gru cache, the reversed input and both
// directions' outputs (the backward one in reversed time).
template <class R>
struct BiCache {
  R *fwd_cache, *bwd_cache, *inp_rev, *out_fwd, *out_bwd;
};

template <class R>
BiCache<R> carve_cache(R* base, int B, int S, int I, int H) {
  const std::size_t c = gru_cache_size(B, S, H), BSI = static_cast<std::size_t>(B) * S * I,
                    BSH = static_cast<std::size_t>(B) * S * H;
  return {base, base + c, base + 2 * c, base + 2 * c + BSI, base + 2 * c + BSI + BSH};
}

// Row b reversed within its length L: dst[b, t] = src[b, L-1-t] for t < L,
// src[b, t] (or zero with zero_rest) for t >= L. Reversal is its own inverse.
template <class Real>
void reverse_within(Real* dst, const Real* src, const std::int32_t* lengths, int B, int S, int D, bool zero_rest) {
  for (int b = 0; b < B; ++b) {
    const int L = lengths[b];
    const std::size_t row = static_cast<std::size_t>(b) * S * D;
    for (int t = 0; t < S; ++t) {
      Real* d = dst + row + static_cast<std::size_t>(t) * D;
      if (t < L)
        std::copy_n(src + row + static_cast<std::size_t>(L - 1 - t) * D, D, d);
      else if (zero_rest)
        std::fill_n(d, D, Real(0));
      else
        std::copy_n(src + row + static_cast<std::size_t>(t) * D, D, d);
    }
  }
}

void check_lengths(const char* where, const std::int32_t* lengths, int B, int S) {
  for (int b = 0; b < B; ++b)
    if (lengths[b] < 1 || lengths[b] > S)
      throw std::invalid_argument(std::string(where) + ": lengths[" + std::to_string(b) + "]=" +
                                  std::to_string(lengths[b]) + " is outside [1, " + std::to_string(S) + "]");
}

}  // namespace

std::size_t bigru_cache_size(int B, int S, int I, int H) {
  check_recurrent_dims("bigru_cache_size", B, S, I, H);
  return 2 * gru_cache_size(B, S, H) + static_cast<std::size_t>(B) * S * (I + 2 * H);
}

std::size_t bigru_scratch_size(int B, int S, int I, int H) {
  check_recurrent_dims("bigru_scratch_size", B, S, I, H);
  // the gru scratch (shared by both directions in turn), dout of each
  // direction (B, S, H) and the reversed dinp (B, S, I)
  return gru_scratch_size(B, S, H) + static_cast<std::size_t>(B) * S * (2 * H + I);
}

template <class Real>
void bigru_forward(Real* out, Real* cache, const Real* inp, const std::int32_t* lengths, const BiGruWeights<Real>& w,
                   int B, int S, int I, int H) {
  check_recurrent_dims("bigru_forward", B, S, I, H);
  check_lengths("bigru_forward", lengths, B, S);
  const BiCache<Real> c = carve_cache(cache, B, S, I, H);
  // forward direction over the padded rows: h_t for t < L never sees padding
  gru_forward(c.out_fwd, c.fwd_cache, inp, w.weight_ih, w.weight_hh, w.bias_ih, w.bias_hh, B, S, I, H);
  // backward direction: the forward kernel on each row reversed within its length
  reverse_within(c.inp_rev, inp, lengths, B, S, I, true);
  gru_forward(c.out_bwd, c.bwd_cache, c.inp_rev, w.weight_ih_reverse, w.weight_hh_reverse, w.bias_ih_reverse,
              w.bias_hh_reverse, B, S, I, H);
  // out[b, t] = [fwd[b, t] ; bwd[b, L-1-t]], zeros past L (pad_packed_sequence)
  for (int b = 0; b < B; ++b) {
    const int L = lengths[b];
    for (int t = 0; t < S; ++t) {
      Real* o = out + (static_cast<std::size_t>(b) * S + t) * 2 * H;
      if (t >= L) {
        std::fill_n(o, 2 * H, Real(0));
        continue;
      }
      std::copy_n(c.out_fwd + (static_cast<std::size_t>(b) * S + t) * H, H, o);
      std::copy_n(c.out_bwd + (static_cast<std::size_t>(b) * S + (L - 1 - t)) * H, H, o + H);
    }
  }
}

template <class Real>
void bigru_backward(Real* dinp, const BiGruGrads<Real>& g, Real* scratch, const Real* dout, const Real* cache,
                    const Real* inp, const std::int32_t* lengths, const BiGruWeights<Real>& w, int B, int S, int I,
                    int H) {
  check_recurrent_dims("bigru_backward", B, S, I, H);
  check_lengths("bigru_backward", lengths, B, S);
  const BiCache<const Real> c = carve_cache(cache, B, S, I, H);
  const std::size_t BSH = static_cast<std::size_t>(B) * S * H;
  Real* gru_scratch = scratch;
  Real* dfwd = scratch + gru_scratch_size(B, S, H);  // (B, S, H)
  Real* dbwd = dfwd + BSH;                            // (B, S, H), reversed time
  Real* dinp_rev = dbwd + BSH;                        // (B, S, I), reversed time
  // split dout by direction; nothing past a length reaches the loss
  for (int b = 0; b < B; ++b) {
    const int L = lengths[b];
    for (int t = 0; t < S; ++t) {
      const std::size_t i = (static_cast<std::size_t>(b) * S + t) * H;
      if (t >= L) {
        std::fill_n(dfwd + i, H, Real(0));
        std::fill_n(dbwd + i, H, Real(0));
        continue;
      }
      const Real* d = dout + (static_cast<std::size_t>(b) * S + t) * 2 * H;
      std::copy_n(d, H, dfwd + i);
      std::copy_n(d + H, H, dbwd + (static_cast<std::size_t>(b) * S + (L - 1 - t)) * H);
    }
  }
  gru_backward(dinp, g.weight_ih, g.weight_hh, g.bias_ih, g.bias_hh, gru_scratch, dfwd, c.fwd_cache, inp,
               w.weight_ih, w.weight_hh, B, S, I, H);
  if (dinp) std::fill_n(dinp_rev, static_cast<std::size_t>(B) * S * I, Real(0));
  gru_backward(dinp ? dinp_rev : nullptr, g.weight_ih_reverse, g.weight_hh_reverse, g.bias_ih_reverse,
               g.bias_hh_reverse, gru_scratch, dbwd, c.bwd_cache, c.inp_rev, w.weight_ih_reverse,
               w.weight_hh_reverse, B, S, I, H);
  if (!dinp) return;
  for (int b = 0; b < B; ++b) {
    const int L = lengths[b];
    for (int t = 0; t < L; ++t) {
      const Real* src = dinp_rev + (static_cast<std::size_t>(b) * S + (L - 1 - t)) * I;
      Real* dst = dinp + (static_cast<std::size_t>(b) * S + t) * I;
      for (int k = 0; k < I; ++k) dst[k] += src[k];
    }
  }
}

template void bigru_forward<float>(float*, float*, const float*, const std::int32_t*, const BiGruWeights<float>&,
                                   int, int, int, int);
template void bigru_forward<double>(double*, double*, const double*, const std::int32_t*,
                                    const BiGruWeights<double>&, int, int, int, int);
template void bigru_backward<float>(float*, const BiGruGrads<float>&, float*, const float*, const float*,
                                    const float*, const std::int32_t*, const BiGruWeights<float>&, int, int, int,
                                    int);
template void bigru_backward<double>(double*, const BiGruGrads<double>&, double*, const double*, const double*,
                                     const double*, const std::int32_t*, const BiGruWeights<double>&, int, int,
                                     int, int);

}  // namespace attnlab::kernels
