#include "nn/gru.hpp"

#include <cstddef>

#include "nn/recurrent_kernels.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::nn {

namespace {

// The cache, carved from one buffer of gru_cache_size(B, T, H) elements.
// P is Real* in the forward pass and const Real* in the backward pass.
template <class P>
struct GruCache {
  P xg;     // (B, T, 3H) x · W_ih^T + b_ih, all steps (forward workspace)
  P hh;     // (B, 3H)    h_{t-1} · W_hh^T + b_hh of the current step (forward workspace)
  P pre;    // (3, B, H)  r and z pre-activations, then the n input part (forward workspace)
  P gates;  // (T, 4, B, H) r, z, n and hn = W_hn h_{t-1} + b_hn, gate-major per step
  P h;      // (T, B, H)  hidden states h_t (time-major copy of out)
};

template <class P>
GruCache<P> gru_cache(P base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, TBH = BH * T;
  GruCache<P> c;
  c.xg = base;
  c.hh = c.xg + 3 * TBH;
  c.pre = c.hh + 3 * BH;
  c.gates = c.pre + 3 * BH;
  c.h = c.gates + 4 * TBH;
  return c;  // ends at c.h + TBH: 8·TBH + 6·BH
}

}  // namespace

std::size_t gru_cache_size(int B, int T, int H) {
  check_recurrent_dims("gru_cache_size", B, T, 1, H);
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  return 8 * BH * T + 6 * BH;
}

std::size_t gru_scratch_size(int B, int T, int H) {
  check_recurrent_dims("gru_scratch_size", B, T, 1, H);
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  return 7 * BH * T + 6 * BH;
}

void gru_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
              float* bias_hh, int I, int H) {
  recurrent_init(gen, weight_ih, weight_hh, bias_ih, bias_hh, kGruGates, I, H);
}

template <class Real>
void gru_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                 const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                 int I, int H) {
  check_recurrent_dims("gru_forward", B, T, I, H);
  using detail::vec;
  const int GH = 3 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * GH;  // between batch rows of xg
  const GruCache<Real*> cv = gru_cache(cache, B, T, H);

  // pass 1: input projection of every step in one product,
  // xg (B·T, 3H) = inp (B·T, I) · W_ih^T + b_ih
  detail::fill_rows<Real>(cv.xg, bias_ih, nullptr, B * T, GH);
  tensor::gemm<Real>(false, true, B * T, GH, I, Real(1), inp, I, weight_ih, I, Real(1), cv.xg, GH);

  // pass 2: the recurrence
  for (int t = 0; t < T; ++t) {
    const Real* xg_t = cv.xg + static_cast<std::size_t>(t) * GH;  // (B, 3H), rows ld_step apart
    Real* gates_t = cv.gates + 4 * BH * t;                         // (4, B, H)
    Real* h_t = cv.h + BH * t;                                     // (B, H)

    // hh (B, 3H) = b_hh + h_{t-1} (B, H) · W_hh^T (H, 3H); h_{-1} = 0
    detail::fill_rows<Real>(cv.hh, bias_hh, nullptr, B, GH);
    if (t > 0)
      tensor::gemm<Real>(false, true, B, GH, H, Real(1), cv.h + BH * (t - 1), H, weight_hh, H,
                         Real(1), cv.hh, GH);
    // gate-major: pre[0..1] = r, z pre-activations; pre[2] = W_in x + b_in;
    // gates[3] = hn = W_hn h_{t-1} + b_hn
    detail::gather_gates<Real>(cv.pre, xg_t, ld_step, cv.hh, GH, B, 2, H);
    detail::gather_gates<Real>(cv.pre + 2 * BH, xg_t + 2 * H, ld_step, nullptr, 0, B, 1, H);
    detail::gather_gates<Real>(gates_t + 3 * BH, cv.hh + 2 * H, GH, nullptr, 0, B, 1, H);

    detail::sigmoid_into(gates_t, cv.pre, 2 * BH);  // r, z
    auto r = vec(gates_t, BH);
    auto z = vec(gates_t + BH, BH);
    auto n = vec(gates_t + 2 * BH, BH);
    auto hn = vec(gates_t + 3 * BH, BH);
    auto xn = vec(cv.pre + 2 * BH, BH);
    auto h = vec(h_t, BH);
    // n = tanh(W_in x + b_in + r ⊙ (W_hn h_{t-1} + b_hn))
    xt::noalias(n) = xt::tanh(xn + r * hn);
    // h_t = (h_{t-1} - n) ⊙ z + n
    if (t == 0) {
      xt::noalias(h) = n - n * z;
    } else {
      auto h_prev = vec(cv.h + BH * (t - 1), BH);
      xt::noalias(h) = (h_prev - n) * z + n;
    }
    detail::put_step(out, h_t, B, T, t, H);
  }
}

template <class Real>
void gru_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                  Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                  const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H) {
  check_recurrent_dims("gru_backward", B, T, I, H);
  using detail::vec;
  const int GH = 3 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * GH;
  const GruCache<const Real*> cv = gru_cache(cache, B, T, H);

  // scratch, 7·B·T·H + 6·B·H:
  Real* dxg = scratch;          // (B, T, 3H) dLoss/d(x-side pre-activations): r, z, n input part
  Real* dhh = dxg + 3 * BH * T;  // (B, T, 3H) dLoss/d(h-side pre-activations): r, z, hn
  Real* hprev = dhh + 3 * BH * T;  // (B, T, H) h_{t-1}, zero at t = 0
  Real* dpre = hprev + BH * T;     // (4, B, H) this step's dr, dz, dn (pre-activation), dhn
  Real* dh = dpre + 4 * BH;        // (B, H) dLoss/dh_t
  Real* dh_skip = dh + BH;         // (B, H) dLoss/dh_{t-1} through the z ⊙ h_{t-1} term

  auto dhv = vec(dh, BH);
  auto dskip = vec(dh_skip, BH);
  auto dpr = vec(dpre, BH);
  auto dpz = vec(dpre + BH, BH);
  auto dpn = vec(dpre + 2 * BH, BH);
  auto dhn = vec(dpre + 3 * BH, BH);

  // pass 1: backward through time
  for (int t = T - 1; t >= 0; --t) {
    const Real* gates_t = cv.gates + 4 * BH * t;
    auto r = vec(gates_t, BH);
    auto z = vec(gates_t + BH, BH);
    auto n = vec(gates_t + 2 * BH, BH);
    auto hn = vec(gates_t + 3 * BH, BH);

    // dh (B, H) = dout[:, t, :] + dh_skip + dhh_{t+1} (B, 3H) · W_hh (3H, H)
    detail::take_step(dh, dout, B, T, t, H);
    if (t + 1 < T) {
      for (std::size_t k = 0; k < BH; ++k) dh[k] += dh_skip[k];
      tensor::gemm<Real>(false, false, B, H, GH, Real(1), dhh + static_cast<std::size_t>(t + 1) * GH,
                         ld_step, weight_hh, H, Real(1), dh, H);
    }

    // h = (h_{t-1} - n) ⊙ z + n, n = tanh(xn + r ⊙ hn)
    xt::noalias(dpn) = dhv * (Real(1) - z) * (Real(1) - n * n);
    if (t > 0) {
      auto h_prev = vec(cv.h + BH * (t - 1), BH);
      xt::noalias(dpz) = dhv * (h_prev - n) * z * (Real(1) - z);
      xt::noalias(dskip) = dhv * z;
    } else {  // h_{-1} = 0
      xt::noalias(dpz) = -dhv * n * z * (Real(1) - z);
    }
    xt::noalias(dhn) = dpn * r;
    xt::noalias(dpr) = dpn * hn * r * (Real(1) - r);

    Real* dxg_t = dxg + static_cast<std::size_t>(t) * GH;
    Real* dhh_t = dhh + static_cast<std::size_t>(t) * GH;
    detail::scatter_gates(dxg_t, ld_step, dpre, B, 3, H);              // dr, dz, dn
    detail::scatter_gates(dhh_t, ld_step, dpre, B, 2, H);              // dr, dz
    detail::scatter_gates(dhh_t + 2 * H, ld_step, dpre + 3 * BH, B, 1, H);  // dhn
  }

  // pass 2: parameter and input gradients, one product each over all B·T rows
  detail::add_column_sums<Real>(dbias_ih, nullptr, dxg, B * T, GH);
  detail::add_column_sums<Real>(dbias_hh, nullptr, dhh, B * T, GH);
  if (dweight_ih)  // dW_ih (3H, I) += dxg^T (3H, B·T) · inp (B·T, I)
    tensor::gemm<Real>(true, false, GH, I, B * T, Real(1), dxg, GH, inp, I, Real(1), dweight_ih, I);
  if (dweight_hh) {  // dW_hh (3H, H) += dhh^T (3H, B·T) · hprev (B·T, H)
    detail::previous_hidden(hprev, cv.h, B, T, H);
    tensor::gemm<Real>(true, false, GH, H, B * T, Real(1), dhh, GH, hprev, H, Real(1), dweight_hh,
                       H);
  }
  if (dinp)  // dinp (B·T, I) += dxg (B·T, 3H) · W_ih (3H, I)
    tensor::gemm<Real>(false, false, B * T, I, GH, Real(1), dxg, GH, weight_ih, I, Real(1), dinp, I);
}

template void gru_forward<float>(float*, float*, const float*, const float*, const float*,
                                 const float*, const float*, int, int, int, int);
template void gru_forward<double>(double*, double*, const double*, const double*, const double*,
                                  const double*, const double*, int, int, int, int);
template void gru_backward<float>(float*, float*, float*, float*, float*, float*, const float*,
                                  const float*, const float*, const float*, const float*, int, int,
                                  int, int);
template void gru_backward<double>(double*, double*, double*, double*, double*, double*,
                                   const double*, const double*, const double*, const double*,
                                   const double*, int, int, int, int);

}  // namespace attnlab::nn
