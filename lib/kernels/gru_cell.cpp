#include "kernels/gru_cell.hpp"

#include <cmath>

#include "kernels/recurrent_common.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::kernels {

std::size_t gru_cell_cache_size(int B, int H) {
  check_recurrent_dims("gru_cell_cache_size", B, 1, 1, H);
  return 4 * static_cast<std::size_t>(B) * H;
}

std::size_t gru_cell_scratch_size(int B, int H) {
  check_recurrent_dims("gru_cell_scratch_size", B, 1, 1, H);
  return 6 * static_cast<std::size_t>(B) * H;
}

template <class Real>
void gru_cell_forward(Real* h_out, Real* cache, const Real* x, const Real* h, const Real* weight_ih,
                      const Real* weight_hh, const Real* bias_ih, const Real* bias_hh, int B, int I, int H) {
  check_recurrent_dims("gru_cell_forward", B, 1, I, H);
  const int GH = 3 * H;
  Real* g = cache;                                       // (B, 3H): pre-activations, then r | z | n
  Real* hn = cache + static_cast<std::size_t>(B) * GH;  // (B, H)
  // pass 1: g = x W_ih^T + b_ih, plus h W_hr^T + b_hr and h W_hz^T + b_hz on r and z;
  // hn = h W_hn^T + b_hn kept apart, since r multiplies it inside n
  for (int b = 0; b < B; ++b) {
    Real* gb = g + static_cast<std::size_t>(b) * GH;
    for (int k = 0; k < GH; ++k) gb[k] = bias_ih[k] + (k < 2 * H ? bias_hh[k] : Real(0));
    for (int k = 0; k < H; ++k) hn[static_cast<std::size_t>(b) * H + k] = bias_hh[2 * H + k];
  }
  tensor::gemm<Real>(false, true, B, GH, I, Real(1), x, I, weight_ih, I, Real(1), g, GH);
  tensor::gemm<Real>(false, true, B, 2 * H, H, Real(1), h, H, weight_hh, H, Real(1), g, GH);
  tensor::gemm<Real>(false, true, B, H, H, Real(1), h, H, weight_hh + static_cast<std::size_t>(2) * H * H, H,
                     Real(1), hn, H);
  // pass 2: the gates in place, and h' = (h - n) ⊙ z + n
  for (int b = 0; b < B; ++b) {
    Real* gb = g + static_cast<std::size_t>(b) * GH;
    const std::size_t o = static_cast<std::size_t>(b) * H;
    for (int k = 0; k < H; ++k) {
      const Real r = Real(1) / (Real(1) + std::exp(-gb[k]));
      const Real z = Real(1) / (Real(1) + std::exp(-gb[H + k]));
      const Real n = std::tanh(gb[2 * H + k] + r * hn[o + k]);
      gb[k] = r;
      gb[H + k] = z;
      gb[2 * H + k] = n;
      h_out[o + k] = (h[o + k] - n) * z + n;
    }
  }
}

template <class Real>
void gru_cell_backward(Real* dx, Real* dh, Real* dweight_ih, Real* dweight_hh, Real* dbias_ih, Real* dbias_hh,
                       Real* scratch, const Real* dh_out, const Real* cache, const Real* x, const Real* h,
                       const Real* weight_ih, const Real* weight_hh, int B, int I, int H) {
  check_recurrent_dims("gru_cell_backward", B, 1, I, H);
  const int GH = 3 * H;
  const Real* g = cache;
  const Real* hn = cache + static_cast<std::size_t>(B) * GH;
  Real* dxg = scratch;                                       // (B, 3H) d(x-side pre-activations) r, z, n
  Real* dhh = scratch + static_cast<std::size_t>(B) * GH;   // (B, 3H) d(h-side) r, z, hn
  // pass 1: through the gates
  for (int b = 0; b < B; ++b) {
    const Real* gb = g + static_cast<std::size_t>(b) * GH;
    const std::size_t o = static_cast<std::size_t>(b) * H, og = static_cast<std::size_t>(b) * GH;
    for (int k = 0; k < H; ++k) {
      const Real r = gb[k], z = gb[H + k], n = gb[2 * H + k], d = dh_out[o + k];
      const Real dn = d * (Real(1) - z) * (Real(1) - n * n);      // n = tanh(...)
      const Real dz = d * (h[o + k] - n) * z * (Real(1) - z);     // σ' = z (1 - z)
      const Real dr = dn * hn[o + k] * r * (Real(1) - r);
      dxg[og + k] = dr;
      dxg[og + H + k] = dz;
      dxg[og + 2 * H + k] = dn;
      dhh[og + k] = dr;
      dhh[og + H + k] = dz;
      dhh[og + 2 * H + k] = dn * r;  // d hn
      if (dh) dh[o + k] += d * z;    // the z ⊙ h term
    }
  }
  // pass 2: products
  if (dbias_ih || dbias_hh)
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < GH; ++k) {
        const std::size_t i = static_cast<std::size_t>(b) * GH + k;
        if (dbias_ih) dbias_ih[k] += dxg[i];
        if (dbias_hh) dbias_hh[k] += dhh[i];
      }
  if (dweight_ih) tensor::gemm<Real>(true, false, GH, I, B, Real(1), dxg, GH, x, I, Real(1), dweight_ih, I);
  if (dweight_hh) tensor::gemm<Real>(true, false, GH, H, B, Real(1), dhh, GH, h, H, Real(1), dweight_hh, H);
  if (dx) tensor::gemm<Real>(false, false, B, I, GH, Real(1), dxg, GH, weight_ih, I, Real(1), dx, I);
  if (dh) tensor::gemm<Real>(false, false, B, H, GH, Real(1), dhh, GH, weight_hh, H, Real(1), dh, H);
}

template void gru_cell_forward<float>(float*, float*, const float*, const float*, const float*, const float*,
                                      const float*, const float*, int, int, int);
template void gru_cell_forward<double>(double*, double*, const double*, const double*, const double*,
                                       const double*, const double*, const double*, int, int, int);
template void gru_cell_backward<float>(float*, float*, float*, float*, float*, float*, float*, const float*,
                                       const float*, const float*, const float*, const float*, const float*, int,
                                       int, int);
template void gru_cell_backward<double>(double*, double*, double*, double*, double*, double*, double*,
                                        const double*, const double*, const double*, const double*, const double*,
                                        const double*, int, int, int);

}  // namespace attnlab::kernels
