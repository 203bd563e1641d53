#include "kernels/rnn.hpp"

#include <cstddef>

#include "kernels/vector/lanewise.hpp"
#include "kernels/recurrent_kernels.hpp"
#include "kernels/embedded_input.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

namespace {

// The cache, carved from one buffer of rnn_cache_size(B, T, H) elements.
// R is Real in the forward pass and const Real in the backward pass. Blocks
// start on 64-byte boundaries; per-step slices are bh = padded(B·H) apart.
template <class R>
struct RnnCache {
  std::size_t bh;  // stride of one (B, H) slice
  R* xg;   // (B, T, H) x · W_ih^T + b_ih + b_hh, all steps (forward workspace)
  R* hh;   // (B, H)    h_{t-1} · W_hh^T of the current step (forward workspace)
  R* pre;  // (B, H)    pre-activation of the current step (forward workspace)
  R* h;    // (T, B, H) hidden states h_t (time-major copy of out)
  std::size_t size;  // elements used, alignment slack included
};

template <class R>
RnnCache<R> rnn_cache(R* base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, bh = detail::padded(BH);
  detail::Carver<R> k(base);
  RnnCache<R> c;
  c.bh = bh;
  c.xg = k.take(BH * T);
  c.hh = k.take(BH);
  c.pre = k.take(BH);
  c.h = k.take(bh * T);
  c.size = k.size();
  return c;
}

// The backward scratch, carved the same way.
template <class Real>
struct RnnScratch {
  Real* dxg;    // (B, T, H) dLoss/d pre-activations, all steps
  Real* hprev;  // (B, T, H) h_{t-1}, zero at t = 0
  Real* dpre;   // (B, H)    this step's pre-activation gradient
  Real* dh;     // (B, H)    dLoss/dh_t
  std::size_t size;
};

template <class Real>
RnnScratch<Real> rnn_scratch(Real* base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  detail::Carver<Real> k(base);
  RnnScratch<Real> s;
  s.dxg = k.take(BH * T);
  s.hprev = k.take(BH * T);
  s.dpre = k.take(BH);
  s.dh = k.take(BH);
  s.size = k.size();
  return s;
}

}  // namespace

std::size_t rnn_cache_size(int B, int T, int H) {
  check_recurrent_dims("rnn_cache_size", B, T, 1, H);
  return rnn_cache<float>(nullptr, B, T, H).size;
}

std::size_t rnn_scratch_size(int B, int T, int H) {
  check_recurrent_dims("rnn_scratch_size", B, T, 1, H);
  return rnn_scratch<float>(nullptr, B, T, H).size;
}

void rnn_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
              float* bias_hh, int I, int H) {
  recurrent_init(gen, weight_ih, weight_hh, bias_ih, bias_hh, kRnnGates, I, H);
}

namespace {

// The forward pass once `project` has filled xg (B·T, H) with the input
// projection of every step, x · W_ih^T + (b_ih + b_hh).
template <class Real, class Project>
void rnn_forward_projected(Real* out, Real* cache, Project project, const Real* weight_hh, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * H;  // between batch rows of xg
  const RnnCache<Real> cv = rnn_cache(cache, B, T, H);
  const std::size_t bh = cv.bh;

  // pass 1: input projection of every step
  project(cv.xg);

  // pass 2: the recurrence, h_t = tanh(xg_t + h_{t-1} · W_hh^T), h_{-1} = 0
  for (int t = 0; t < T; ++t) {
    const Real* xg_t = cv.xg + static_cast<std::size_t>(t) * H;  // (B, H), rows ld_step apart
    Real* h_t = cv.h + bh * t;                                    // (B, H)
    if (t == 0) {
      detail::gather_gates<Real>(cv.pre, bh, xg_t, ld_step, nullptr, 0, B, 1, H);
    } else {
      // hh (B, H) = h_{t-1} (B, H) · W_hh^T (H, H)
      tensor::gemm<Real>(false, true, B, H, H, Real(1), cv.h + bh * (t - 1), H, weight_hh, H,
                         Real(0), cv.hh, H);
      detail::gather_gates<Real>(cv.pre, bh, xg_t, ld_step, cv.hh, H, B, 1, H);
    }
    detail::tanh_into(h_t, cv.pre, BH);
    detail::put_step(out, h_t, B, T, t, H);
  }
}

// Backward through time and the recurrent and bias gradients; returns dxg
// (B·T, H) = dLoss/d pre-activations, from which the caller takes the input
// side (dW_ih and the input's gradient).
template <class Real>
const Real* rnn_backward_recurrent(Real* dweight_hh, Real* dbias_ih, Real* dbias_hh, Real* scratch,
                                   const Real* dout, const Real* cache, const Real* weight_hh, int B, int T,
                                   int H) {
  using detail::map_lanes;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * H;
  const RnnCache<const Real> cv = rnn_cache(cache, B, T, H);
  const std::size_t bh = cv.bh;
  const RnnScratch<Real> s = rnn_scratch(scratch, B, T, H);


  // pass 1: backward through time
  for (int t = T - 1; t >= 0; --t) {
    // dh (B, H) = dout[:, t, :] + dxg_{t+1} (B, H) · W_hh (H, H)
    detail::take_step(s.dh, dout, B, T, t, H);
    if (t + 1 < T)
      tensor::gemm<Real>(false, false, B, H, H, Real(1), s.dxg + static_cast<std::size_t>(t + 1) * H,
                         ld_step, weight_hh, H, Real(1), s.dh, H);
    // h = tanh(pre): dpre = dh ⊙ (1 - h²)
    map_lanes(s.dpre, BH, [](auto dh, auto h) { return dh * (Real(1) - h * h); },
              static_cast<const Real*>(s.dh), cv.h + bh * t);
    detail::scatter_gates(s.dxg + static_cast<std::size_t>(t) * H, ld_step, s.dpre, BH, B, 1, H);
  }

  // pass 2: parameter gradients, one product each over all B·T rows
  // (b_ih and b_hh enter the pre-activation the same way: equal gradients)
  detail::add_column_sums(dbias_ih, dbias_hh, s.dxg, B * T, H);
  if (dweight_hh) {  // dW_hh (H, H) += dxg^T (H, B·T) · hprev (B·T, H)
    detail::previous_hidden(s.hprev, cv.h, bh, B, T, H);
    tensor::gemm<Real>(true, false, H, H, B * T, Real(1), s.dxg, H, s.hprev, H, Real(1),
                       dweight_hh, H);
  }
  return s.dxg;
}

}  // namespace

template <class Real>
void rnn_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                 const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                 int I, int H) {
  check_recurrent_dims("rnn_forward", B, T, I, H);
  rnn_forward_projected(out, cache, [&](Real* xg) {
    // xg (B·T, H) = inp (B·T, I) · W_ih^T + (b_ih + b_hh), one product
    detail::fill_rows(xg, bias_ih, bias_hh, B * T, H);
    tensor::gemm<Real>(false, true, B * T, H, I, Real(1), inp, I, weight_ih, I, Real(1), xg, H);
  }, weight_hh, B, T, H);
}

template <class Real>
void rnn_forward_embedded(Real* out, Real* cache, const EmbeddedInput<Real>& inp, const Real* weight_ih,
                          const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                          int I, int H) {
  check_recurrent_dims("rnn_forward_embedded", B, T, I, H);
  check_embedded_input("rnn_forward_embedded", inp, B * T, I, H);
  rnn_forward_projected(out, cache, [&](Real* xg) {
    embedded_projection_forward(xg, inp, weight_ih, bias_ih, bias_hh, B * T, I, H);
  }, weight_hh, B, T, H);
}

template <class Real>
void rnn_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                  Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                  const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H) {
  check_recurrent_dims("rnn_backward", B, T, I, H);
  const Real* dxg = rnn_backward_recurrent(dweight_hh, dbias_ih, dbias_hh, scratch, dout, cache, weight_hh, B, T, H);
  if (dweight_ih)  // dW_ih (H, I) += dxg^T (H, B·T) · inp (B·T, I)
    tensor::gemm<Real>(true, false, H, I, B * T, Real(1), dxg, H, inp, I, Real(1), dweight_ih, I);
  if (dinp)  // dinp (B·T, I) += dxg (B·T, H) · W_ih (H, I)
    tensor::gemm<Real>(false, false, B * T, I, H, Real(1), dxg, H, weight_ih, I, Real(1), dinp, I);
}

template <class Real>
void rnn_backward_embedded(Real* dweight_emb, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih,
                           Real* dbias_hh, Real* scratch, const Real* dout, const Real* cache,
                           const EmbeddedInput<Real>& inp, const Real* weight_ih, const Real* weight_hh, int B,
                           int T, int I, int H) {
  check_recurrent_dims("rnn_backward_embedded", B, T, I, H);
  check_embedded_input("rnn_backward_embedded", inp, B * T, I, H);  // before any gradient is added to
  const Real* dxg = rnn_backward_recurrent(dweight_hh, dbias_ih, dbias_hh, scratch, dout, cache, weight_hh, B, T, H);
  embedded_projection_backward(dweight_emb, dweight_ih, dxg, inp, weight_ih, B * T, I, H);
}

template void rnn_forward<float>(float*, float*, const float*, const float*, const float*,
                                 const float*, const float*, int, int, int, int);
template void rnn_forward<double>(double*, double*, const double*, const double*, const double*,
                                  const double*, const double*, int, int, int, int);
template void rnn_backward<float>(float*, float*, float*, float*, float*, float*, const float*,
                                  const float*, const float*, const float*, const float*, int, int,
                                  int, int);
template void rnn_backward<double>(double*, double*, double*, double*, double*, double*,
                                   const double*, const double*, const double*, const double*,
                                   const double*, int, int, int, int);
template void rnn_forward_embedded<float>(float*, float*, const EmbeddedInput<float>&, const float*, const float*,
                                          const float*, const float*, int, int, int, int);
template void rnn_forward_embedded<double>(double*, double*, const EmbeddedInput<double>&, const double*,
                                           const double*, const double*, const double*, int, int, int, int);
template void rnn_backward_embedded<float>(float*, float*, float*, float*, float*, float*, const float*,
                                           const float*, const EmbeddedInput<float>&, const float*, const float*,
                                           int, int, int, int);
template void rnn_backward_embedded<double>(double*, double*, double*, double*, double*, double*, const double*,
                                            const double*, const EmbeddedInput<double>&, const double*,
                                            const double*, int, int, int, int);

}  // namespace attnlab::kernels
