#include "nn/lstm.hpp"

#include <algorithm>
#include <cstddef>

#include "nn/recurrent_kernels.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::nn {

namespace {

// The cache, carved from one buffer of lstm_cache_size(B, T, H) elements.
// P is Real* in the forward pass and const Real* in the backward pass.
template <class P>
struct LstmCache {
  P xg;     // (B, T, 4H) x · W_ih^T + b_ih + b_hh, all steps (forward workspace)
  P hh;     // (B, 4H)    h_{t-1} · W_hh^T of the current step (forward workspace)
  P pre;    // (4, B, H)  pre-activations of the current step, gate-major (forward workspace)
  P gates;  // (T, 4, B, H) activated gates i, f, g, o, gate-major per step
  P c;      // (T, B, H)  cell states c_t
  P tc;     // (T, B, H)  tanh(c_t)
  P h;      // (T, B, H)  hidden states h_t (time-major copy of out)
};

template <class P>
LstmCache<P> lstm_cache(P base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, TBH = BH * T;
  LstmCache<P> c;
  c.xg = base;
  c.hh = c.xg + 4 * TBH;
  c.pre = c.hh + 4 * BH;
  c.gates = c.pre + 4 * BH;
  c.c = c.gates + 4 * TBH;
  c.tc = c.c + TBH;
  c.h = c.tc + TBH;
  return c;  // ends at c.h + TBH: 11·TBH + 8·BH
}

}  // namespace

std::size_t lstm_cache_size(int B, int T, int H) {
  check_recurrent_dims("lstm_cache_size", B, T, 1, H);
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  return 11 * BH * T + 8 * BH;
}

std::size_t lstm_scratch_size(int B, int T, int H) {
  check_recurrent_dims("lstm_scratch_size", B, T, 1, H);
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  return 5 * BH * T + 7 * BH;
}

void lstm_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
               float* bias_hh, int I, int H) {
  recurrent_init(gen, weight_ih, weight_hh, bias_ih, bias_hh, kLstmGates, I, H);
}

template <class Real>
void lstm_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                  const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                  int I, int H) {
  check_recurrent_dims("lstm_forward", B, T, I, H);
  using detail::vec;
  const int GH = 4 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * GH;  // between batch rows of xg
  const LstmCache<Real*> cv = lstm_cache(cache, B, T, H);

  // pass 1: input projection of every step in one product,
  // xg (B·T, 4H) = inp (B·T, I) · W_ih^T + (b_ih + b_hh)
  detail::fill_rows(cv.xg, bias_ih, bias_hh, B * T, GH);
  tensor::gemm<Real>(false, true, B * T, GH, I, Real(1), inp, I, weight_ih, I, Real(1), cv.xg, GH);

  // pass 2: the recurrence
  for (int t = 0; t < T; ++t) {
    const Real* xg_t = cv.xg + static_cast<std::size_t>(t) * GH;  // (B, 4H), rows ld_step apart
    Real* gates_t = cv.gates + 4 * BH * t;                         // (4, B, H)
    Real* c_t = cv.c + BH * t;                                     // (B, H)
    Real* tc_t = cv.tc + BH * t;                                   // (B, H)
    Real* h_t = cv.h + BH * t;                                     // (B, H)

    // pre (4, B, H) = xg_t + h_{t-1} · W_hh^T, gate-major; h_{-1} = 0
    if (t == 0) {
      detail::gather_gates<Real>(cv.pre, xg_t, ld_step, nullptr, 0, B, 4, H);
    } else {
      // hh (B, 4H) = h_{t-1} (B, H) · W_hh^T (H, 4H)
      tensor::gemm<Real>(false, true, B, GH, H, Real(1), cv.h + BH * (t - 1), H, weight_hh, H,
                         Real(0), cv.hh, GH);
      detail::gather_gates<Real>(cv.pre, xg_t, ld_step, cv.hh, GH, B, 4, H);
    }

    // i, f = σ; g = tanh; o = σ, each over the whole batch at once
    detail::sigmoid_into(gates_t, cv.pre, 2 * BH);
    detail::tanh_into(gates_t + 2 * BH, cv.pre + 2 * BH, BH);
    detail::sigmoid_into(gates_t + 3 * BH, cv.pre + 3 * BH, BH);

    auto i = vec(gates_t, BH);
    auto f = vec(gates_t + BH, BH);
    auto g = vec(gates_t + 2 * BH, BH);
    auto o = vec(gates_t + 3 * BH, BH);
    auto c = vec(c_t, BH);
    auto tc = vec(tc_t, BH);
    auto h = vec(h_t, BH);
    // c_t = f ⊙ c_{t-1} + i ⊙ g, with c_{-1} = 0
    if (t == 0) {
      xt::noalias(c) = i * g;
    } else {
      auto c_prev = vec(cv.c + BH * (t - 1), BH);
      xt::noalias(c) = f * c_prev + i * g;
    }
    // h_t = o ⊙ tanh(c_t)
    xt::noalias(tc) = xt::tanh(c);
    xt::noalias(h) = o * tc;
    detail::put_step(out, h_t, B, T, t, H);
  }
}

template <class Real>
void lstm_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                   Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                   const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H) {
  check_recurrent_dims("lstm_backward", B, T, I, H);
  using detail::vec;
  const int GH = 4 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * GH;
  const LstmCache<const Real*> cv = lstm_cache(cache, B, T, H);

  // scratch, 5·B·T·H + 7·B·H:
  Real* dxg = scratch;                                    // (B, T, 4H) dLoss/d pre-activations
  Real* hprev = dxg + 4 * BH * T;                         // (B, T, H)  h_{t-1}, zero at t = 0
  Real* dpre = hprev + BH * T;                            // (4, B, H)  this step's dxg, gate-major
  Real* dh = dpre + 4 * BH;                               // (B, H)     dLoss/dh_t
  Real* dc = dh + BH;                                     // (B, H)     dLoss/dc_t
  Real* dc_next = dc + BH;                                // (B, H)     dLoss/dc_t through c_{t+1}
  std::fill(dc_next, dc_next + BH, Real(0));

  auto dhv = vec(dh, BH);
  auto dcv = vec(dc, BH);
  auto dcn = vec(dc_next, BH);
  auto dpi = vec(dpre, BH);
  auto dpf = vec(dpre + BH, BH);
  auto dpg = vec(dpre + 2 * BH, BH);
  auto dpo = vec(dpre + 3 * BH, BH);

  // pass 1: backward through time
  for (int t = T - 1; t >= 0; --t) {
    const Real* gates_t = cv.gates + 4 * BH * t;
    auto i = vec(gates_t, BH);
    auto f = vec(gates_t + BH, BH);
    auto g = vec(gates_t + 2 * BH, BH);
    auto o = vec(gates_t + 3 * BH, BH);
    auto tc = vec(cv.tc + BH * t, BH);

    // dh (B, H) = dout[:, t, :] + dxg_{t+1} (B, 4H) · W_hh (4H, H)
    detail::take_step(dh, dout, B, T, t, H);
    if (t + 1 < T)
      tensor::gemm<Real>(false, false, B, H, GH, Real(1), dxg + static_cast<std::size_t>(t + 1) * GH,
                         ld_step, weight_hh, H, Real(1), dh, H);

    // h = o ⊙ tanh(c): into c through tanh, and into o
    xt::noalias(dcv) = dcn + dhv * o * (Real(1) - tc * tc);
    xt::noalias(dpo) = dhv * tc * o * (Real(1) - o);
    // c = f ⊙ c_{t-1} + i ⊙ g
    xt::noalias(dpi) = dcv * g * i * (Real(1) - i);
    xt::noalias(dpg) = dcv * i * (Real(1) - g * g);
    if (t > 0) {
      auto c_prev = vec(cv.c + BH * (t - 1), BH);
      xt::noalias(dpf) = dcv * c_prev * f * (Real(1) - f);
      xt::noalias(dcn) = dcv * f;
    } else {
      std::fill(dpre + BH, dpre + 2 * BH, Real(0));  // c_{-1} = 0: f has no effect
    }
    detail::scatter_gates(dxg + static_cast<std::size_t>(t) * GH, ld_step, dpre, B, 4, H);
  }

  // pass 2: parameter and input gradients, one product each over all B·T rows
  // (b_ih and b_hh enter every pre-activation the same way: equal gradients)
  detail::add_column_sums(dbias_ih, dbias_hh, dxg, B * T, GH);
  if (dweight_ih)  // dW_ih (4H, I) += dxg^T (4H, B·T) · inp (B·T, I)
    tensor::gemm<Real>(true, false, GH, I, B * T, Real(1), dxg, GH, inp, I, Real(1), dweight_ih, I);
  if (dweight_hh) {  // dW_hh (4H, H) += dxg^T (4H, B·T) · hprev (B·T, H)
    detail::previous_hidden(hprev, cv.h, B, T, H);
    tensor::gemm<Real>(true, false, GH, H, B * T, Real(1), dxg, GH, hprev, H, Real(1), dweight_hh,
                       H);
  }
  if (dinp)  // dinp (B·T, I) += dxg (B·T, 4H) · W_ih (4H, I)
    tensor::gemm<Real>(false, false, B * T, I, GH, Real(1), dxg, GH, weight_ih, I, Real(1), dinp, I);
}

template void lstm_forward<float>(float*, float*, const float*, const float*, const float*,
                                  const float*, const float*, int, int, int, int);
template void lstm_forward<double>(double*, double*, const double*, const double*, const double*,
                                   const double*, const double*, int, int, int, int);
template void lstm_backward<float>(float*, float*, float*, float*, float*, float*, const float*,
                                   const float*, const float*, const float*, const float*, int, int,
                                   int, int);
template void lstm_backward<double>(double*, double*, double*, double*, double*, double*,
                                    const double*, const double*, const double*, const double*,
                                    const double*, int, int, int, int);

}  // namespace attnlab::nn
