#include "kernels/lstm.hpp"

#include <algorithm>
#include <cstddef>

#include "kernels/embedded_input.hpp"
#include "kernels/vector/lanewise.hpp"
#include "kernels/recurrent_kernels.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

namespace {

// The cache, carved from one buffer of lstm_cache_size(B, T, H) elements.
// R is Real in the forward pass and const Real in the backward pass. Blocks
// start on 64-byte boundaries; per-step slices are bh = padded(B·H) apart.
template <class R>
struct LstmCache {
  std::size_t bh;  // stride of one (B, H) slice
  R* xg;     // (B, T, 4H)   x · W_ih^T + b_ih + b_hh, all steps (forward workspace)
  R* hh;     // (B, 4H)      h_{t-1} · W_hh^T of the current step (forward workspace)
  R* whh_t;  // (H, 4H)      W_hh^T, once per forward: each step's product reads it in place (forward workspace)
  R* pre;    // (4, B, H)    pre-activations of the current step, gate-major (forward workspace)
  R* gates;  // (T, 4, B, H) activated gates i, f, g, o, gate-major per step
  R* c;      // (T, B, H)    cell states c_t
  R* tc;     // (T, B, H)    tanh(c_t)
  R* h;      // (T, B, H)    hidden states h_t (time-major copy of out)
  std::size_t size;  // elements used, alignment slack included
};

template <class R>
LstmCache<R> lstm_cache(R* base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, bh = detail::padded(BH);
  detail::Carver<R> k(base);
  LstmCache<R> c;
  c.bh = bh;
  c.xg = k.take(4 * BH * T);
  c.hh = k.take(4 * BH);
  c.whh_t = k.take(4 * static_cast<std::size_t>(H) * H);
  c.pre = k.take(4 * bh);
  c.gates = k.take(4 * bh * T);
  c.c = k.take(bh * T);
  c.tc = k.take(bh * T);
  c.h = k.take(bh * T);
  c.size = k.size();
  return c;
}

// The backward scratch, carved the same way.
template <class Real>
struct LstmScratch {
  Real* dxg;      // (B, T, 4H) dLoss/d pre-activations, all steps
  Real* hprev;    // (B, T, H)  h_{t-1}, zero at t = 0
  Real* dpre;     // (4, B, H)  this step's pre-activation gradients, gate-major
  Real* dh;       // (B, H)     dLoss/dh_t
  Real* dc;       // (B, H)     dLoss/dc_t
  Real* dc_next;  // (B, H)     dLoss/dc_t through c_{t+1}, from the step after
  std::size_t size;
};

template <class Real>
LstmScratch<Real> lstm_scratch(Real* base, int B, int T, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, bh = detail::padded(BH);
  detail::Carver<Real> k(base);
  LstmScratch<Real> s;
  s.dxg = k.take(4 * BH * T);
  s.hprev = k.take(BH * T);
  s.dpre = k.take(4 * bh);
  s.dh = k.take(BH);
  s.dc = k.take(BH);
  s.dc_next = k.take(BH);
  s.size = k.size();
  return s;
}

}  // namespace

std::size_t lstm_cache_size(int B, int T, int H) {
  check_recurrent_dims("lstm_cache_size", B, T, 1, H);
  return lstm_cache<float>(nullptr, B, T, H).size;
}

std::size_t lstm_scratch_size(int B, int T, int H) {
  check_recurrent_dims("lstm_scratch_size", B, T, 1, H);
  return lstm_scratch<float>(nullptr, B, T, H).size;
}

void lstm_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
               float* bias_hh, int I, int H) {
  recurrent_init(gen, weight_ih, weight_hh, bias_ih, bias_hh, kLstmGates, I, H);
}

namespace {

// The forward pass once `project` has filled xg (B·T, 4H) with the input
// projection of every step, x · W_ih^T + (b_ih + b_hh).
template <class Real, class Project>
void lstm_forward_projected(Real* out, Real* cache, Project project, const Real* weight_hh, int B, int T, int H) {
  using detail::map_lanes;
  const int GH = 4 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * GH;  // between batch rows of xg
  const LstmCache<Real> cv = lstm_cache(cache, B, T, H);
  const std::size_t bh = cv.bh;

  // pass 1: input projection of every step
  project(cv.xg);

  // pass 2: the recurrence. Its product h_{t-1} · W_hh^T reads W_hh^T as
  // stored, transposed once here: as A·B^T every step would transpose W_hh
  // again into packed panels (tensor/sgemm_tiles.hpp; 6.5 % of a bottleneck
  // run). The tiles' sums are the same either way.
  if (T > 1) detail::transpose_into(cv.whh_t, weight_hh, GH, H);
  for (int t = 0; t < T; ++t) {
    const Real* xg_t = cv.xg + static_cast<std::size_t>(t) * GH;  // (B, 4H), rows ld_step apart
    Real* gates_t = cv.gates + 4 * bh * t;                         // (4, B, H), gates bh apart
    Real* c_t = cv.c + bh * t;                                     // (B, H)
    Real* tc_t = cv.tc + bh * t;                                   // (B, H)
    Real* h_t = cv.h + bh * t;                                     // (B, H)

    // pre (4, B, H) = xg_t + h_{t-1} · W_hh^T, gate-major; h_{-1} = 0
    if (t == 0) {
      detail::gather_gates<Real>(cv.pre, bh, xg_t, ld_step, nullptr, 0, B, 4, H);
    } else {
      // hh (B, 4H) = h_{t-1} (B, H) · W_hh^T (H, 4H)
      tensor::gemm<Real>(false, false, B, GH, H, Real(1), cv.h + bh * (t - 1), H, cv.whh_t, GH,
                         Real(0), cv.hh, GH);
      detail::gather_gates<Real>(cv.pre, bh, xg_t, ld_step, cv.hh, GH, B, 4, H);
    }

    // i, f = σ; g = tanh; o = σ, each over the whole batch at once
    detail::sigmoid_into(gates_t, cv.pre, BH);
    detail::sigmoid_into(gates_t + bh, cv.pre + bh, BH);
    detail::tanh_into(gates_t + 2 * bh, cv.pre + 2 * bh, BH);
    detail::sigmoid_into(gates_t + 3 * bh, cv.pre + 3 * bh, BH);

    const Real *i = gates_t, *f = gates_t + bh, *g = gates_t + 2 * bh, *o = gates_t + 3 * bh;
    // c_t = f ⊙ c_{t-1} + i ⊙ g, with c_{-1} = 0
    if (t == 0) {
      map_lanes(c_t, BH, [](auto i, auto g) { return i * g; }, i, g);
    } else {
      const Real* c_prev = cv.c + bh * (t - 1);
      map_lanes(c_t, BH, [](auto f, auto cp, auto i, auto g) { return f * cp + i * g; }, f, c_prev, i, g);
    }
    // h_t = o ⊙ tanh(c_t)
    map_lanes(tc_t, BH, [](auto c) { return xsimd::tanh(c); }, static_cast<const Real*>(c_t));
    map_lanes(h_t, BH, [](auto o, auto tc) { return o * tc; }, o, static_cast<const Real*>(tc_t));
    detail::put_step(out, h_t, B, T, t, H);
  }
}

// Backward through time and the recurrent and bias gradients; returns dxg
// (B·T, 4H) = dLoss/d pre-activations, from which the caller takes the
// input side (dW_ih and the input's gradient).
template <class Real>
const Real* lstm_backward_recurrent(Real* dweight_hh, Real* dbias_ih, Real* dbias_hh, Real* scratch,
                                    const Real* dout, const Real* cache, const Real* weight_hh, int B, int T,
                                    int H) {
  using detail::map_lanes;
  const int GH = 4 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const std::size_t ld_step = static_cast<std::size_t>(T) * GH;
  const LstmCache<const Real> cv = lstm_cache(cache, B, T, H);
  const std::size_t bh = cv.bh;
  const LstmScratch<Real> s = lstm_scratch(scratch, B, T, H);
  std::fill(s.dc_next, s.dc_next + BH, Real(0));

  const Real *dh = s.dh, *dc = s.dc, *dc_next = s.dc_next;
  Real *dpi = s.dpre, *dpf = s.dpre + bh, *dpg = s.dpre + 2 * bh, *dpo = s.dpre + 3 * bh;

  // pass 1: backward through time
  for (int t = T - 1; t >= 0; --t) {
    const Real* gates_t = cv.gates + 4 * bh * t;
    const Real *i = gates_t, *f = gates_t + bh, *g = gates_t + 2 * bh, *o = gates_t + 3 * bh;
    const Real* tc = cv.tc + bh * t;

    // dh (B, H) = dout[:, t, :] + dxg_{t+1} (B, 4H) · W_hh (4H, H)
    detail::take_step(s.dh, dout, B, T, t, H);
    if (t + 1 < T)
      tensor::gemm<Real>(false, false, B, H, GH, Real(1),
                         s.dxg + static_cast<std::size_t>(t + 1) * GH, ld_step, weight_hh, H,
                         Real(1), s.dh, H);

    // h = o ⊙ tanh(c): into c through tanh, and into o
    map_lanes(s.dc, BH, [](auto dcn, auto dh, auto o, auto tc) { return dcn + dh * o * (Real(1) - tc * tc); },
              dc_next, dh, o, tc);
    map_lanes(dpo, BH, [](auto dh, auto tc, auto o) { return dh * tc * o * (Real(1) - o); }, dh, tc, o);
    // c = f ⊙ c_{t-1} + i ⊙ g
    map_lanes(dpi, BH, [](auto dc, auto g, auto i) { return dc * g * i * (Real(1) - i); }, dc, g, i);
    map_lanes(dpg, BH, [](auto dc, auto i, auto g) { return dc * i * (Real(1) - g * g); }, dc, i, g);
    if (t > 0) {
      const Real* c_prev = cv.c + bh * (t - 1);
      map_lanes(dpf, BH, [](auto dc, auto cp, auto f) { return dc * cp * f * (Real(1) - f); }, dc, c_prev, f);
      map_lanes(s.dc_next, BH, [](auto dc, auto f) { return dc * f; }, dc, f);
    } else {
      std::fill(s.dpre + bh, s.dpre + bh + BH, Real(0));  // c_{-1} = 0: f has no effect
    }
    detail::scatter_gates(s.dxg + static_cast<std::size_t>(t) * GH, ld_step, s.dpre, bh, B, 4, H);
  }

  // pass 2: parameter gradients, one product each over all B·T rows
  // (b_ih and b_hh enter every pre-activation the same way: equal gradients)
  detail::add_column_sums(dbias_ih, dbias_hh, s.dxg, B * T, GH);
  if (dweight_hh) {  // dW_hh (4H, H) += dxg^T (4H, B·T) · hprev (B·T, H)
    detail::previous_hidden(s.hprev, cv.h, bh, B, T, H);
    tensor::gemm<Real>(true, false, GH, H, B * T, Real(1), s.dxg, GH, s.hprev, H, Real(1),
                       dweight_hh, H);
  }
  return s.dxg;
}

}  // namespace

template <class Real>
void lstm_forward(Real* out, Real* cache, const Real* inp, const Real* weight_ih,
                  const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                  int I, int H) {
  check_recurrent_dims("lstm_forward", B, T, I, H);
  const int GH = 4 * H;
  lstm_forward_projected(out, cache, [&](Real* xg) {
    // xg (B·T, 4H) = inp (B·T, I) · W_ih^T + (b_ih + b_hh), one product
    detail::fill_rows(xg, bias_ih, bias_hh, B * T, GH);
    tensor::gemm<Real>(false, true, B * T, GH, I, Real(1), inp, I, weight_ih, I, Real(1), xg, GH);
  }, weight_hh, B, T, H);
}

template <class Real>
void lstm_forward_embedded(Real* out, Real* cache, const EmbeddedInput<Real>& inp, const Real* weight_ih,
                           const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                           int I, int H) {
  check_recurrent_dims("lstm_forward_embedded", B, T, I, H);
  check_embedded_input("lstm_forward_embedded", inp, B * T, I, 4 * H);
  lstm_forward_projected(out, cache, [&](Real* xg) {
    embedded_projection_forward(xg, inp, weight_ih, bias_ih, bias_hh, B * T, I, 4 * H);
  }, weight_hh, B, T, H);
}

template <class Real>
void lstm_backward(Real* dinp, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                   Real* scratch, const Real* dout, const Real* cache, const Real* inp,
                   const Real* weight_ih, const Real* weight_hh, int B, int T, int I, int H) {
  check_recurrent_dims("lstm_backward", B, T, I, H);
  const int GH = 4 * H;
  const Real* dxg = lstm_backward_recurrent(dweight_hh, dbias_ih, dbias_hh, scratch, dout, cache, weight_hh, B, T, H);
  if (dweight_ih)  // dW_ih (4H, I) += dxg^T (4H, B·T) · inp (B·T, I)
    tensor::gemm<Real>(true, false, GH, I, B * T, Real(1), dxg, GH, inp, I, Real(1), dweight_ih, I);
  if (dinp)  // dinp (B·T, I) += dxg (B·T, 4H) · W_ih (4H, I)
    tensor::gemm<Real>(false, false, B * T, I, GH, Real(1), dxg, GH, weight_ih, I, Real(1), dinp, I);
}

template <class Real>
void lstm_backward_embedded(Real* dweight_emb, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih,
                            Real* dbias_hh, Real* scratch, const Real* dout, const Real* cache,
                            const EmbeddedInput<Real>& inp, const Real* weight_ih, const Real* weight_hh, int B,
                            int T, int I, int H) {
  check_recurrent_dims("lstm_backward_embedded", B, T, I, H);
  check_embedded_input("lstm_backward_embedded", inp, B * T, I, 4 * H);  // before any gradient is added to
  const Real* dxg = lstm_backward_recurrent(dweight_hh, dbias_ih, dbias_hh, scratch, dout, cache, weight_hh, B, T, H);
  embedded_projection_backward(dweight_emb, dweight_ih, dxg, inp, weight_ih, B * T, I, 4 * H);
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
template void lstm_forward_embedded<float>(float*, float*, const EmbeddedInput<float>&, const float*, const float*,
                                           const float*, const float*, int, int, int, int);
template void lstm_forward_embedded<double>(double*, double*, const EmbeddedInput<double>&, const double*,
                                            const double*, const double*, const double*, int, int, int, int);
template void lstm_backward_embedded<float>(float*, float*, float*, float*, float*, float*, const float*,
                                            const float*, const EmbeddedInput<float>&, const float*, const float*,
                                            int, int, int, int);
template void lstm_backward_embedded<double>(double*, double*, double*, double*, double*, double*, const double*,
                                             const double*, const EmbeddedInput<double>&, const double*,
                                             const double*, int, int, int, int);

template <class Real>
void lstm_last_cell(Real* c_n, const Real* cache, int B, int T, int H) {
  check_recurrent_dims("lstm_last_cell", B, T, 1, H);
  const LstmCache<const Real> cv = lstm_cache(cache, B, T, H);
  std::copy_n(cv.c + std::size_t(T - 1) * cv.bh, std::size_t(B) * H, c_n);
}
template void lstm_last_cell<float>(float*, const float*, int, int, int);
template void lstm_last_cell<double>(double*, const double*, int, int, int);

}  // namespace attnlab::kernels
