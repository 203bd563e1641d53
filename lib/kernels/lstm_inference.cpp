#include "kernels/lstm_inference.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "kernels/vector/lanewise.hpp"
#include "kernels/recurrent_common.hpp"
#include "kernels/recurrent_kernels.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

namespace {

// The workspace, carved from one buffer; blocks on 64-byte boundaries.
template <class Real>
struct LstmInferenceWork {
  std::size_t bh;  // stride of one (B, H) slice
  Real* xg;        // (B, chunk, 4H) x · W_ih^T + b_ih + b_hh of the chunk's steps
  Real* hh;        // (B, 4H)        h_{t-1} · W_hh^T
  Real* pre;       // (4, B, H)      pre-activations, gate-major
  Real* gates;     // (4, B, H)      activated gates i, f, g, o
  Real* c[2];      // (B, H)         c_{t-1} and c_t, in turn
  Real* tc;        // (B, H)         tanh(c_t)
  std::size_t size;
};

template <class Real>
LstmInferenceWork<Real> carve(Real* base, int B, int H) {
  const std::size_t BH = static_cast<std::size_t>(B) * H, bh = detail::padded(BH);
  detail::Carver<Real> k(base);
  LstmInferenceWork<Real> w;
  w.bh = bh;
  w.xg = k.take(4 * BH * kLstmInferenceChunk);
  w.hh = k.take(4 * BH);
  w.pre = k.take(4 * bh);
  w.gates = k.take(4 * bh);
  w.c[0] = k.take(bh);
  w.c[1] = k.take(bh);
  w.tc = k.take(bh);
  w.size = k.size();
  return w;
}

}  // namespace

std::size_t lstm_inference_workspace_size(int B, int H) {
  check_recurrent_dims("lstm_inference_workspace_size", B, 1, 1, H);
  return carve<float>(nullptr, B, H).size;
}

template <class Real>
void lstm_inference_forward(Real* out, Real* workspace, const Real* inp, const Real* weight_ih,
                            const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int T,
                            int I, int H) {
  check_recurrent_dims("lstm_inference_forward", B, T, I, H);
  using detail::map_lanes;
  const int GH = 4 * H;
  const std::size_t BH = static_cast<std::size_t>(B) * H;
  const LstmInferenceWork<Real> w = carve(workspace, B, H);
  const std::size_t bh = w.bh;
  const std::size_t ld_step = static_cast<std::size_t>(kLstmInferenceChunk) * GH;  // between batch rows of xg

  const Real* h_prev = nullptr;  // (B, H) rows H apart: out's row t - 1, read with stride T·H
  for (int t0 = 0; t0 < T; t0 += kLstmInferenceChunk) {
    const int steps = std::min(kLstmInferenceChunk, T - t0);
    // pass 1: input projection of the chunk, per batch row
    // xg[b] (steps, 4H) = inp[b, t0 .. t0 + steps) (steps, I) · W_ih^T + (b_ih + b_hh)
    for (int b = 0; b < B; ++b) {
      Real* xg_b = w.xg + b * ld_step;
      detail::fill_rows(xg_b, bias_ih, bias_hh, steps, GH);
      tensor::gemm<Real>(false, true, steps, GH, I, Real(1), inp + (static_cast<std::size_t>(b) * T + t0) * I, I,
                         weight_ih, I, Real(1), xg_b, GH);
    }

    // pass 2: the recurrence over the chunk, as lstm_forward's
    for (int s = 0; s < steps; ++s) {
      const int t = t0 + s;
      const Real* xg_t = w.xg + static_cast<std::size_t>(s) * GH;  // (B, 4H), rows ld_step apart
      Real* c_t = w.c[t % 2];
      const Real* c_prev = w.c[(t + 1) % 2];
      if (t == 0) {
        detail::gather_gates<Real>(w.pre, bh, xg_t, ld_step, nullptr, 0, B, 4, H);
      } else {
        // hh (B, 4H) = h_{t-1} (B, H) · W_hh^T; h_{t-1} is out[:, t-1, :], rows T·H apart
        tensor::gemm<Real>(false, true, B, GH, H, Real(1), h_prev, T * H, weight_hh, H, Real(0), w.hh, GH);
        detail::gather_gates<Real>(w.pre, bh, xg_t, ld_step, w.hh, GH, B, 4, H);
      }
      Real* gates = w.gates;
      detail::sigmoid_into(gates, w.pre, BH);
      detail::sigmoid_into(gates + bh, w.pre + bh, BH);
      detail::tanh_into(gates + 2 * bh, w.pre + 2 * bh, BH);
      detail::sigmoid_into(gates + 3 * bh, w.pre + 3 * bh, BH);
      const Real *ig = gates, *fg = gates + bh, *gg = gates + 2 * bh, *og = gates + 3 * bh;
      if (t == 0)
        map_lanes(c_t, BH, [](auto i, auto g) { return i * g; }, ig, gg);
      else
        map_lanes(c_t, BH, [](auto f, auto cp, auto i, auto g) { return f * cp + i * g; }, fg, c_prev, ig, gg);
      map_lanes(w.tc, BH, [](auto c) { return xsimd::tanh(c); }, static_cast<const Real*>(c_t));
      // h_t = o ⊙ tanh(c_t), into out[:, t, :] through the (B, H) slice hh no longer needs
      Real* h_t = w.hh;
      map_lanes(h_t, BH, [](auto o, auto tc) { return o * tc; }, og, static_cast<const Real*>(w.tc));
      detail::put_step(out, static_cast<const Real*>(h_t), B, T, t, H);
      h_prev = out + static_cast<std::size_t>(t) * H;
    }
  }
}

template void lstm_inference_forward<float>(float*, float*, const float*, const float*, const float*, const float*,
                                            const float*, int, int, int, int);
template void lstm_inference_forward<double>(double*, double*, const double*, const double*, const double*,
                                             const double*, const double*, int, int, int, int);

}  // namespace attnlab::kernels
