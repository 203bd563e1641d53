#include "nn/rnn.hpp"

#include <cstddef>

#include "nn/recurrent_kernels.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::nn {

namespace {

// The cache, carved from one buffer of rnn_cache_size(B, T, H) elements.
// P is Real* in the forward pass and const Real* in the backward pass.
template <class P>
struct RnnCache {
  P xg;   // (B, T, H) x · W_ih^T + b_ih + b_hh, all steps (forward workspace)
  P hh;   // (B, H)    h_{t-1} · W_hh^T of the current step (forward workspace)
  P pre;  // (B, H)    pre-activation of the current step (forward workspace)
  P h;    // (T, B, H) hidden states h_t (time-major copy of out)
};

template <class P>
RnnCache<P> rnn_cache(P base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, TBH = BH * T;
  RnnCache<P> c;
  c.xg = base;
  c.hh = c.xg + TBH;
  c.pre = c.hh + BH;
  c.h = c.pre + BH;
  return c;  // ends at c.h + TBH: 2·TBH + 2·BH
}

}  // namespace

std::size_t rnn_cache_size(int B, int T, int H) {
  check_recurrent_dims("rnn_cache_size", B, T, 1, H);
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  return 2 * BH * T + 2 * BH;
}

std::size_t rnn_scratch_size(int B, int T, int H) {
  check_recurrent_dims("rnn_scratch_size", B, T, 1, H);
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  return 2 * BH * T + 2 * BH;
}

void rnn_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
              float* bias_hh, int I, int H) {
  recurrent_init(gen, weight_ih, weight_hh, bias_ih, bias_hh, kRnnGates, I, H);
}

template <class Real>
void rnn_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                 const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                 int I, int H) {
  check_recurrent_dims("rnn_forward", B, T, I, H);
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * H;  // between batch rows of xg
  const RnnCache<Real*> cv = rnn_cache(cache, B, T, H);

  // pass 1: input projection of every step in one product,
  // xg (B·T, H) = inp (B·T, I) · W_ih^T + (b_ih + b_hh)
  detail::fill_rows(cv.xg, bias_ih, bias_hh, B * T, H);
  tensor::gemm<Real>(false, true, B * T, H, I, Real(1), inp, I, weight_ih, I, Real(1), cv.xg, H);

  // pass 2: the recurrence, h_t = tanh(xg_t + h_{t-1} · W_hh^T), h_{-1} = 0
  for (int t = 0; t < T; ++t) {
    const Real* xg_t = cv.xg + static_cast<std::size_t>(t) * H;  // (B, H), rows ld_step apart
    Real* h_t = cv.h + BH * t;                                    // (B, H)
    if (t == 0) {
      detail::gather_gates<Real>(cv.pre, xg_t, ld_step, nullptr, 0, B, 1, H);
    } else {
      // hh (B, H) = h_{t-1} (B, H) · W_hh^T (H, H)
      tensor::gemm<Real>(false, true, B, H, H, Real(1), cv.h + BH * (t - 1), H, weight_hh, H,
                         Real(0), cv.hh, H);
      detail::gather_gates<Real>(cv.pre, xg_t, ld_step, cv.hh, H, B, 1, H);
    }
    detail::tanh_into(h_t, cv.pre, BH);
    detail::put_step(out, h_t, B, T, t, H);
  }
}

template <class Real>
void rnn_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                  Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                  const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H) {
  check_recurrent_dims("rnn_backward", B, T, I, H);
  using detail::vec;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * H;
  const RnnCache<const Real*> cv = rnn_cache(cache, B, T, H);

  // scratch, 2·B·T·H + 2·B·H:
  Real* dxg = scratch;         // (B, T, H) dLoss/d pre-activations
  Real* hprev = dxg + BH * T;  // (B, T, H) h_{t-1}, zero at t = 0
  Real* dpre = hprev + BH * T;  // (B, H) this step's pre-activation gradient
  Real* dh = dpre + BH;        // (B, H) dLoss/dh_t

  auto dhv = vec(dh, BH);
  auto dp = vec(dpre, BH);

  // pass 1: backward through time
  for (int t = T - 1; t >= 0; --t) {
    // dh (B, H) = dout[:, t, :] + dxg_{t+1} (B, H) · W_hh (H, H)
    detail::take_step(dh, dout, B, T, t, H);
    if (t + 1 < T)
      tensor::gemm<Real>(false, false, B, H, H, Real(1), dxg + static_cast<std::size_t>(t + 1) * H,
                         ld_step, weight_hh, H, Real(1), dh, H);
    // h = tanh(pre): dpre = dh ⊙ (1 - h²)
    auto h = vec(cv.h + BH * t, BH);
    xt::noalias(dp) = dhv * (Real(1) - h * h);
    detail::scatter_gates(dxg + static_cast<std::size_t>(t) * H, ld_step, dpre, B, 1, H);
  }

  // pass 2: parameter and input gradients, one product each over all B·T rows
  // (b_ih and b_hh enter the pre-activation the same way: equal gradients)
  detail::add_column_sums(dbias_ih, dbias_hh, dxg, B * T, H);
  if (dweight_ih)  // dW_ih (H, I) += dxg^T (H, B·T) · inp (B·T, I)
    tensor::gemm<Real>(true, false, H, I, B * T, Real(1), dxg, H, inp, I, Real(1), dweight_ih, I);
  if (dweight_hh) {  // dW_hh (H, H) += dxg^T (H, B·T) · hprev (B·T, H)
    detail::previous_hidden(hprev, cv.h, B, T, H);
    tensor::gemm<Real>(true, false, H, H, B * T, Real(1), dxg, H, hprev, H, Real(1), dweight_hh, H);
  }
  if (dinp)  // dinp (B·T, I) += dxg (B·T, H) · W_ih (H, I)
    tensor::gemm<Real>(false, false, B * T, I, H, Real(1), dxg, H, weight_ih, I, Real(1), dinp, I);
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

}  // namespace attnlab::nn
