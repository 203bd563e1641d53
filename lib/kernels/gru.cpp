#include "kernels/gru.hpp"

#include <cstddef>

#include "kernels/vector/lanewise.hpp"
#include "kernels/recurrent_kernels.hpp"
#include "kernels/embedded_input.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

namespace {

// The cache, carved from one buffer of gru_cache_size(B, T, H) elements.
// R is Real in the forward pass and const Real in the backward pass. Blocks
// start on 64-byte boundaries; per-step slices are bh = padded(B·H) apart.
template <class R>
struct GruCache {
  std::size_t bh;  // stride of one (B, H) slice
  R* xg;     // (B, T, 3H)   x · W_ih^T + b_ih, all steps (forward workspace)
  R* hh;     // (B, 3H)      h_{t-1} · W_hh^T + b_hh of the current step (forward workspace)
  R* pre;    // (3, B, H)    r and z pre-activations, then W_in x + b_in (forward workspace)
  R* gates;  // (T, 4, B, H) r, z, n and hn = W_hn h_{t-1} + b_hn, gate-major per step
  R* h;      // (T, B, H)    hidden states h_t (time-major copy of out)
  std::size_t size;  // elements used, alignment slack included
};

template <class R>
GruCache<R> gru_cache(R* base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, bh = detail::padded(BH);
  detail::Carver<R> k(base);
  GruCache<R> c;
  c.bh = bh;
  c.xg = k.take(3 * BH * T);
  c.hh = k.take(3 * BH);
  c.pre = k.take(3 * bh);
  c.gates = k.take(4 * bh * T);
  c.h = k.take(bh * T);
  c.size = k.size();
  return c;
}

// The backward scratch, carved the same way.
template <class Real>
struct GruScratch {
  Real* dxg;      // (B, T, 3H) dLoss/d(x-side pre-activations): r, z, and n's input part
  Real* dhh;      // (B, T, 3H) dLoss/d(h-side pre-activations): r, z, and hn
  Real* hprev;    // (B, T, H)  h_{t-1}, zero at t = 0
  Real* dpre;     // (4, B, H)  this step's dr, dz, dn (pre-activations) and dhn, gate-major
  Real* dh;       // (B, H)     dLoss/dh_t
  Real* dh_skip;  // (B, H)     dLoss/dh_{t-1} through the z ⊙ h_{t-1} term
  std::size_t size;
};

template <class Real>
GruScratch<Real> gru_scratch(Real* base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, bh = detail::padded(BH);
  detail::Carver<Real> k(base);
  GruScratch<Real> s;
  s.dxg = k.take(3 * BH * T);
  s.dhh = k.take(3 * BH * T);
  s.hprev = k.take(BH * T);
  s.dpre = k.take(4 * bh);
  s.dh = k.take(BH);
  s.dh_skip = k.take(BH);
  s.size = k.size();
  return s;
}

}  // namespace

std::size_t gru_cache_size(int B, int T, int H) {
  check_recurrent_dims("gru_cache_size", B, T, 1, H);
  return gru_cache<float>(nullptr, B, T, H).size;
}

std::size_t gru_scratch_size(int B, int T, int H) {
  check_recurrent_dims("gru_scratch_size", B, T, 1, H);
  return gru_scratch<float>(nullptr, B, T, H).size;
}

void gru_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
              float* bias_hh, int I, int H) {
  recurrent_init(gen, weight_ih, weight_hh, bias_ih, bias_hh, kGruGates, I, H);
}

namespace {

// The forward pass once `project` has filled xg (B·T, 3H) with the input
// projection of every step, x · W_ih^T + b_ih (b_hh goes inside r ⊙ (...)).
template <class Real, class Project>
void gru_forward_projected(Real* out, Real* cache, Project project, const Real* weight_hh, const Real* bias_hh,
                           int B, int T, int H) {
  using detail::map_lanes;
  const int GH = 3 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * GH;  // between batch rows of xg
  const GruCache<Real> cv = gru_cache(cache, B, T, H);
  const std::size_t bh = cv.bh;

  // pass 1: input projection of every step
  project(cv.xg);

  // pass 2: the recurrence
  for (int t = 0; t < T; ++t) {
    const Real* xg_t = cv.xg + static_cast<std::size_t>(t) * GH;  // (B, 3H), rows ld_step apart
    Real* gates_t = cv.gates + 4 * bh * t;                         // (4, B, H), blocks bh apart
    Real* h_t = cv.h + bh * t;                                     // (B, H)

    // hh (B, 3H) = b_hh + h_{t-1} (B, H) · W_hh^T (H, 3H); h_{-1} = 0
    detail::fill_rows<Real>(cv.hh, bias_hh, nullptr, B, GH);
    if (t > 0)
      tensor::gemm<Real>(false, true, B, GH, H, Real(1), cv.h + bh * (t - 1), H, weight_hh, H,
                         Real(1), cv.hh, GH);
    // gate-major: pre[0..1] = r, z pre-activations; pre[2] = W_in x + b_in;
    // gates[3] = hn = W_hn h_{t-1} + b_hn
    detail::gather_gates<Real>(cv.pre, bh, xg_t, ld_step, cv.hh, GH, B, 2, H);
    detail::gather_gates<Real>(cv.pre + 2 * bh, bh, xg_t + 2 * H, ld_step, nullptr, 0, B, 1, H);
    detail::gather_gates<Real>(gates_t + 3 * bh, bh, cv.hh + 2 * H, GH, nullptr, 0, B, 1, H);

    detail::sigmoid_into(gates_t, cv.pre, BH);             // r
    detail::sigmoid_into(gates_t + bh, cv.pre + bh, BH);   // z
    const Real *r = gates_t, *z = gates_t + bh, *hn = gates_t + 3 * bh, *xn = cv.pre + 2 * bh;
    Real* n = gates_t + 2 * bh;
    // n = tanh(W_in x + b_in + r ⊙ (W_hn h_{t-1} + b_hn))
    map_lanes(n, BH, [](auto xn, auto r, auto hn) { return xsimd::tanh(xn + r * hn); }, xn, r, hn);
    // h_t = (h_{t-1} - n) ⊙ z + n
    const Real* nc = n;
    if (t == 0) {
      map_lanes(h_t, BH, [](auto n, auto z) { return n - n * z; }, nc, z);
    } else {
      const Real* h_prev = cv.h + bh * (t - 1);
      map_lanes(h_t, BH, [](auto hp, auto n, auto z) { return (hp - n) * z + n; }, h_prev, nc, z);
    }
    detail::put_step(out, h_t, B, T, t, H);
  }
}

// Backward through time and the recurrent and bias gradients; returns dxg
// (B·T, 3H) = dLoss/d input projection, from which the caller takes the
// input side (dW_ih and the input's gradient).
template <class Real>
const Real* gru_backward_recurrent(Real* dweight_hh, Real* dbias_ih, Real* dbias_hh, Real* scratch,
                                   const Real* dout, const Real* cache, const Real* weight_hh, int B, int T,
                                   int H) {
  using detail::map_lanes;
  const int GH = 3 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * GH;
  const GruCache<const Real> cv = gru_cache(cache, B, T, H);
  const std::size_t bh = cv.bh;
  const GruScratch<Real> s = gru_scratch(scratch, B, T, H);

  const Real* dh = s.dh;
  Real *dpr = s.dpre, *dpz = s.dpre + bh, *dpn = s.dpre + 2 * bh, *dhn = s.dpre + 3 * bh;
  const Real* dpn_c = dpn;

  // pass 1: backward through time
  for (int t = T - 1; t >= 0; --t) {
    const Real* gates_t = cv.gates + 4 * bh * t;
    const Real *r = gates_t, *z = gates_t + bh, *n = gates_t + 2 * bh, *hn = gates_t + 3 * bh;

    // dh (B, H) = dout[:, t, :] + dh_skip + dhh_{t+1} (B, 3H) · W_hh (3H, H)
    detail::take_step(s.dh, dout, B, T, t, H);
    if (t + 1 < T) {
      for (std::size_t k = 0; k < BH; ++k) s.dh[k] += s.dh_skip[k];
      tensor::gemm<Real>(false, false, B, H, GH, Real(1),
                         s.dhh + static_cast<std::size_t>(t + 1) * GH, ld_step, weight_hh, H,
                         Real(1), s.dh, H);
    }

    // h = (h_{t-1} - n) ⊙ z + n, n = tanh(xn + r ⊙ hn)
    map_lanes(dpn, BH, [](auto dh, auto z, auto n) { return dh * (Real(1) - z) * (Real(1) - n * n); }, dh, z, n);
    if (t > 0) {
      const Real* h_prev = cv.h + bh * (t - 1);
      map_lanes(dpz, BH, [](auto dh, auto hp, auto n, auto z) { return dh * (hp - n) * z * (Real(1) - z); }, dh,
                h_prev, n, z);
      map_lanes(s.dh_skip, BH, [](auto dh, auto z) { return dh * z; }, dh, z);
    } else {  // h_{-1} = 0
      map_lanes(dpz, BH, [](auto dh, auto n, auto z) { return -dh * n * z * (Real(1) - z); }, dh, n, z);
    }
    map_lanes(dhn, BH, [](auto dpn, auto r) { return dpn * r; }, dpn_c, r);
    map_lanes(dpr, BH, [](auto dpn, auto hn, auto r) { return dpn * hn * r * (Real(1) - r); }, dpn_c, hn, r);

    Real* dxg_t = s.dxg + static_cast<std::size_t>(t) * GH;
    Real* dhh_t = s.dhh + static_cast<std::size_t>(t) * GH;
    detail::scatter_gates(dxg_t, ld_step, s.dpre, bh, B, 3, H);                 // dr, dz, dn
    detail::scatter_gates(dhh_t, ld_step, s.dpre, bh, B, 2, H);                 // dr, dz
    detail::scatter_gates(dhh_t + 2 * H, ld_step, s.dpre + 3 * bh, bh, B, 1, H);  // dhn
  }

  // pass 2: parameter gradients, one product each over all B·T rows
  detail::add_column_sums<Real>(dbias_ih, nullptr, s.dxg, B * T, GH);
  detail::add_column_sums<Real>(dbias_hh, nullptr, s.dhh, B * T, GH);
  if (dweight_hh) {  // dW_hh (3H, H) += dhh^T (3H, B·T) · hprev (B·T, H)
    detail::previous_hidden(s.hprev, cv.h, bh, B, T, H);
    tensor::gemm<Real>(true, false, GH, H, B * T, Real(1), s.dhh, GH, s.hprev, H, Real(1),
                       dweight_hh, H);
  }
  return s.dxg;
}

}  // namespace

template <class Real>
void gru_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                 const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                 int I, int H) {
  check_recurrent_dims("gru_forward", B, T, I, H);
  const int GH = 3 * H;
  gru_forward_projected(out, cache, [&](Real* xg) {
    // xg (B·T, 3H) = inp (B·T, I) · W_ih^T + b_ih, one product
    detail::fill_rows<Real>(xg, bias_ih, nullptr, B * T, GH);
    tensor::gemm<Real>(false, true, B * T, GH, I, Real(1), inp, I, weight_ih, I, Real(1), xg, GH);
  }, weight_hh, bias_hh, B, T, H);
}

template <class Real>
void gru_forward_embedded(Real* out, Real* cache, const EmbeddedInput<Real>& inp, const Real* weight_ih,
                          const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                          int I, int H) {
  check_recurrent_dims("gru_forward_embedded", B, T, I, H);
  check_embedded_input("gru_forward_embedded", inp, B * T, I, 3 * H);
  gru_forward_projected(out, cache, [&](Real* xg) {
    embedded_projection_forward<Real>(xg, inp, weight_ih, bias_ih, nullptr, B * T, I, 3 * H);
  }, weight_hh, bias_hh, B, T, H);
}

template <class Real>
void gru_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                  Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                  const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H) {
  check_recurrent_dims("gru_backward", B, T, I, H);
  const int GH = 3 * H;
  const Real* dxg = gru_backward_recurrent(dweight_hh, dbias_ih, dbias_hh, scratch, dout, cache, weight_hh, B, T, H);
  if (dweight_ih)  // dW_ih (3H, I) += dxg^T (3H, B·T) · inp (B·T, I)
    tensor::gemm<Real>(true, false, GH, I, B * T, Real(1), dxg, GH, inp, I, Real(1), dweight_ih, I);
  if (dinp)  // dinp (B·T, I) += dxg (B·T, 3H) · W_ih (3H, I)
    tensor::gemm<Real>(false, false, B * T, I, GH, Real(1), dxg, GH, weight_ih, I, Real(1), dinp, I);
}

template <class Real>
void gru_backward_embedded(Real* dweight_emb, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih,
                           Real* dbias_hh, Real* scratch, const Real* dout, const Real* cache,
                           const EmbeddedInput<Real>& inp, const Real* weight_ih, const Real* weight_hh, int B,
                           int T, int I, int H) {
  check_recurrent_dims("gru_backward_embedded", B, T, I, H);
  check_embedded_input("gru_backward_embedded", inp, B * T, I, 3 * H);  // before any gradient is added to
  const Real* dxg = gru_backward_recurrent(dweight_hh, dbias_ih, dbias_hh, scratch, dout, cache, weight_hh, B, T, H);
  embedded_projection_backward(dweight_emb, dweight_ih, dxg, inp, weight_ih, B * T, I, 3 * H);
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
template void gru_forward_embedded<float>(float*, float*, const EmbeddedInput<float>&, const float*, const float*,
                                          const float*, const float*, int, int, int, int);
template void gru_forward_embedded<double>(double*, double*, const EmbeddedInput<double>&, const double*,
                                           const double*, const double*, const double*, int, int, int, int);
template void gru_backward_embedded<float>(float*, float*, float*, float*, float*, float*, const float*,
                                           const float*, const EmbeddedInput<float>&, const float*, const float*,
                                           int, int, int, int);
template void gru_backward_embedded<double>(double*, double*, double*, double*, double*, double*, const double*,
                                            const double*, const EmbeddedInput<double>&, const double*,
                                            const double*, int, int, int, int);

}  // namespace attnlab::kernels
