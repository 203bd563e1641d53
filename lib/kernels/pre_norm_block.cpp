#include "kernels/pre_norm_block.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/dropout.hpp"
#include "kernels/gelu.hpp"
#include "kernels/layer_norm.hpp"
#include "kernels/linear.hpp"
#include "kernels/mha_distinct_rows.hpp"

namespace attnlab::kernels {

std::vector<BlockParamSpec> pre_norm_block_param_specs(int C, int F) {
  return {{"norm1.weight", {C}},       {"norm1.bias", {C}},          {"attn.in_proj_weight", {3 * C, C}},
          {"attn.in_proj_bias", {3 * C}}, {"attn.out_proj.weight", {C, C}}, {"attn.out_proj.bias", {C}},
          {"norm2.weight", {C}},       {"norm2.bias", {C}},          {"ff.0.weight", {F, C}},
          {"ff.0.bias", {F}},          {"ff.2.weight", {C, F}},      {"ff.2.bias", {C}}};
}

std::size_t pre_norm_block_param_count(int C, int F) {
  std::size_t n = 0;
  for (const auto& p : pre_norm_block_param_specs(C, F)) {
    std::size_t s = 1;
    for (int d : p.shape) s *= static_cast<std::size_t>(d);
    n += s;
  }
  return n;
}

void pre_norm_block_init(random::Generator& gen, const PreNormTensors<float>& w, int C, int F) {
  kernels::layer_norm_init(w.norm1_weight, w.norm1_bias, C);
  kernels::multihead_attention_init(gen, w.in_proj_weight, w.in_proj_bias, w.out_proj_weight, w.out_proj_bias, C);
  kernels::layer_norm_init(w.norm2_weight, w.norm2_bias, C);
  kernels::linear_init(gen, w.ff1_weight, w.ff1_bias, C, F);
  kernels::linear_init(gen, w.ff2_weight, w.ff2_bias, F, C);
}

template <class Real>
std::size_t PreNormWorkspace<Real>::bytes(int max_batch, int T, int C, int H, int F) {
  const kernels::MhaDims d = kernels::mha_dims(max_batch, T, T, C, H);
  const std::size_t N = static_cast<std::size_t>(max_batch) * T;
  const std::size_t reals = 9 * N * C + 4 * N + 5 * N * static_cast<std::size_t>(F) + kernels::mha_cache_size(d) +
                            kernels::mha_scratch_size(d);
  const std::size_t masks = static_cast<std::size_t>(max_batch) * H * T * T + N * C;  // keep_attn, keep_ff
  return reals * sizeof(Real) + masks;
}

template <class Real>
PreNormWorkspace<Real>::PreNormWorkspace(int max_batch_, int T, int C, int H, int F) : max_batch(max_batch_) {
  const kernels::MhaDims d = kernels::mha_dims(max_batch, T, T, C, H);
  const std::size_t N = static_cast<std::size_t>(max_batch) * T;
  for (auto* v : {&h1, &a, &x1, &h2, &f2, &dx1, &df2, &dh2, &dh1}) v->resize(N * C);
  for (auto* v : {&mean1, &rstd1, &mean2, &rstd2}) v->resize(N);
  for (auto* v : {&f1, &dgelu1, &g1, &dg1, &df1}) v->resize(N * F);
  mha_cache.resize(kernels::mha_cache_size(d));
  mha_scratch.resize(kernels::mha_scratch_size(d));
  keep_attn.resize(static_cast<std::size_t>(max_batch) * H * T * T);
  keep_ff.resize(N * C);
}

namespace {
void check_batch(int B, int max_batch) {
  if (B < 1 || B > max_batch)
    throw std::invalid_argument("batch of " + std::to_string(B) + " does not fit the block's workspace");
}
// Before anything is written: U in [1, N], every idx in [0, U).
template <class Real>
void check_rows(const DistinctRows<Real>* rows, int N) {
  if (!rows) return;
  if (rows->U < 1 || rows->U > N)
    throw std::invalid_argument("distinct rows: U = " + std::to_string(rows->U) + " is outside [1, " +
                                std::to_string(N) + "]");
  for (int r = 0; r < N; ++r)
    if (rows->idx[r] < 0 || rows->idx[r] >= rows->U) [[unlikely]]
      throw std::out_of_range("distinct rows: idx " + std::to_string(rows->idx[r]) + " at row " + std::to_string(r) +
                              " is outside [0, " + std::to_string(rows->U) + ")");
}
}  // namespace

template <class Real>
void pre_norm_block_draw_masks(PreNormWorkspace<Real>& ws, const BlockDims& d, random::Generator& g) {
  check_batch(d.B, ws.max_batch);
  ws.dropped = d.dropout > 0.0;
  if (!ws.dropped) return;
  // The forward pass draws nothing else, so drawing both masks first is the
  // stream PyTorch draws them in: the attention weights', then the output's.
  ws.scale_attn = static_cast<Real>(
      kernels::mha_draw_dropout(g, ws.keep_attn.data(), kernels::mha_dims(d.B, d.T, d.T, d.C, d.H), d.dropout));
  g.dropout_mask(ws.keep_ff.data(), static_cast<std::size_t>(d.B) * d.T * d.C, d.dropout);
  ws.scale_ff = static_cast<Real>(random::dropout_scale(d.dropout));
}

template <class Real>
void pre_norm_block_take_masks(PreNormWorkspace<Real>& ws, const PreNormWorkspace<Real>& from, int first,
                                  const BlockDims& d) {
  check_batch(d.B, ws.max_batch);
  check_batch(first + d.B, from.max_batch);
  ws.dropped = from.dropped;
  ws.scale_attn = from.scale_attn;
  ws.scale_ff = from.scale_ff;
  if (!ws.dropped) return;
  const std::size_t attn_row = static_cast<std::size_t>(d.H) * d.T * d.T, ff_row = static_cast<std::size_t>(d.T) * d.C;
  std::copy_n(from.keep_attn.begin() + first * attn_row, d.B * attn_row, ws.keep_attn.begin());
  std::copy_n(from.keep_ff.begin() + first * ff_row, d.B * ff_row, ws.keep_ff.begin());
}

template <class Real>
void pre_norm_block_forward(Real* out, PreNormWorkspace<Real>& ws, const Real* x, const PreNormTensors<Real>& w,
                               const BlockDims& d, random::Generator* train, const DistinctRows<Real>* rows) {
  check_batch(d.B, ws.max_batch);
  if (train) pre_norm_block_draw_masks(ws, d, *train);
  else ws.dropped = false;
  pre_norm_block_forward_drawn(out, ws, x, w, d, rows);
}

template <class Real>
void pre_norm_block_forward_drawn(Real* out, PreNormWorkspace<Real>& ws, const Real* x, const PreNormTensors<Real>& w,
                                     const BlockDims& d, const DistinctRows<Real>* rows) {
  check_batch(d.B, ws.max_batch);
  const kernels::MhaDims md = kernels::mha_dims(d.B, d.T, d.T, d.C, d.H);
  const int N = d.B * d.T, C = d.C, F = d.F;
  check_rows(rows, N);
  // h1 = LN1(x); a = MHA(h1, h1, h1), dropout on its weights when training
  // (with distinct rows, h1 holds LN1 of those U rows)
  kernels::layer_norm_forward(ws.h1.data(), ws.mean1.data(), ws.rstd1.data(), rows ? rows->rows : x, w.norm1_weight,
                         w.norm1_bias, rows ? rows->U : N, C);
  kernels::MhaDropout<Real> attn_drop;
  if (ws.dropped) attn_drop = {ws.keep_attn.data(), ws.scale_attn};
  kernels::MhaMasks<Real> masks;
  masks.causal = d.causal;
  masks.key_padding = d.key_padding;
  if (rows)
    kernels::mha_self_forward_distinct<Real>(
        ws.a.data(), ws.mha_cache.data(), rows->table, ws.h1.data(), rows->idx, rows->U, masks, attn_drop,
        kernels::mha_packed<Real>(w.in_proj_weight, w.in_proj_bias, w.out_proj_weight, w.out_proj_bias, C), md);
  else
    kernels::multihead_attention_forward<Real>(ws.a.data(), nullptr, kernels::MhaWeights::none, ws.mha_cache.data(),
                                          ws.h1.data(), ws.h1.data(), ws.h1.data(), masks, attn_drop,
                                          w.in_proj_weight, w.in_proj_bias, w.out_proj_weight, w.out_proj_bias, md);
  // x1 = x + a
  for (int i = 0; i < N * C; ++i) ws.x1[i] = x[i] + ws.a[i];
  // f2 = Linear2(GELU(Linear1(LN2(x1))))
  kernels::layer_norm_forward(ws.h2.data(), ws.mean2.data(), ws.rstd2.data(), ws.x1.data(), w.norm2_weight,
                         w.norm2_bias, N, C);
  kernels::linear_forward(ws.f1.data(), ws.h2.data(), w.ff1_weight, w.ff1_bias, N, C, F);
  kernels::gelu_forward_keep(ws.g1.data(), ws.dgelu1.data(), ws.f1.data(), static_cast<std::size_t>(N) * F);
  kernels::linear_forward(ws.f2.data(), ws.g1.data(), w.ff2_weight, w.ff2_bias, N, F, C);
  // out = x1 + Dropout(f2)
  if (ws.dropped) {
    kernels::dropout_forward(out, ws.f2.data(), ws.keep_ff.data(), ws.scale_ff, static_cast<std::size_t>(N) * C);
    for (int i = 0; i < N * C; ++i) out[i] += ws.x1[i];
  } else {
    for (int i = 0; i < N * C; ++i) out[i] = ws.x1[i] + ws.f2[i];
  }
}

template <class Real>
void pre_norm_block_backward(Real* dx, const PreNormTensors<Real>& grad, PreNormWorkspace<Real>& ws,
                                const Real* dout, const Real* x, const PreNormTensors<Real>& w, const BlockDims& d,
                                const DistinctRows<Real>* rows) {
  const kernels::MhaDims md = kernels::mha_dims(d.B, d.T, d.T, d.C, d.H);
  const std::size_t N = static_cast<std::size_t>(d.B) * d.T, NC = N * d.C, NF = N * d.F;
  const int C = d.C, F = d.F;
  check_rows(rows, static_cast<int>(N));
  // The residual hands dout to x1 unchanged; the feed-forward path adds to it.
  std::copy_n(dout, NC, ws.dx1.begin());
  if (ws.dropped) {
    // df2 = dout * keep * scale: dropout's backward into a zeroed buffer, written
    // directly (the forward's multiply) instead of zeroing it first
    kernels::dropout_forward(ws.df2.data(), dout, ws.keep_ff.data(), ws.scale_ff, NC);
  } else {
    std::copy_n(dout, NC, ws.df2.begin());
  }
  std::fill_n(ws.dg1.begin(), NF, Real(0));
  kernels::linear_backward(ws.dg1.data(), grad.ff2_weight, grad.ff2_bias, ws.df2.data(), ws.g1.data(), w.ff2_weight,
                      static_cast<int>(N), F, C);
  kernels::gelu_backward_kept_overwrite(ws.df1.data(), ws.dg1.data(), ws.dgelu1.data(), NF);
  std::fill_n(ws.dh2.begin(), NC, Real(0));
  kernels::linear_backward(ws.dh2.data(), grad.ff1_weight, grad.ff1_bias, ws.df1.data(), ws.h2.data(), w.ff1_weight,
                      static_cast<int>(N), C, F);
  kernels::layer_norm_backward(ws.dx1.data(), grad.norm2_weight, grad.norm2_bias, ws.dh2.data(), ws.mean2.data(),
                          ws.rstd2.data(), ws.x1.data(), w.norm2_weight, static_cast<int>(N), C);
  // x1 = x + a: dx gets dx1 directly and through the attention path.
  for (std::size_t i = 0; i < NC; ++i) dx[i] += ws.dx1[i];
  kernels::MhaDropout<Real> attn_drop;
  if (ws.dropped) attn_drop = {ws.keep_attn.data(), ws.scale_attn};
  if (rows) {
    const std::size_t UC = static_cast<std::size_t>(rows->U) * C;
    std::fill_n(ws.dh1.begin(), UC, Real(0));
    kernels::mha_self_backward_distinct<Real>(
        ws.dh1.data(),
        kernels::mha_packed_grads<Real>(grad.in_proj_weight, grad.in_proj_bias, grad.out_proj_weight, grad.out_proj_bias,
                                   C),
        ws.mha_scratch.data(), rows->table, ws.dx1.data(), ws.mha_cache.data(), ws.h1.data(), rows->idx, rows->U,
        attn_drop, kernels::mha_packed<Real>(w.in_proj_weight, w.in_proj_bias, w.out_proj_weight, w.out_proj_bias, C),
        md);
    kernels::layer_norm_backward(rows->d_rows, grad.norm1_weight, grad.norm1_bias, ws.dh1.data(), ws.mean1.data(),
                            ws.rstd1.data(), rows->rows, w.norm1_weight, rows->U, C);
    return;
  }
  std::fill_n(ws.dh1.begin(), NC, Real(0));
  kernels::multihead_attention_backward<Real>(ws.dh1.data(), ws.dh1.data(), ws.dh1.data(), grad.in_proj_weight,
                                         grad.in_proj_bias, grad.out_proj_weight, grad.out_proj_bias,
                                         ws.mha_scratch.data(), ws.dx1.data(), ws.mha_cache.data(), ws.h1.data(),
                                         ws.h1.data(), ws.h1.data(), attn_drop, w.in_proj_weight,
                                         w.out_proj_weight, md);
  kernels::layer_norm_backward(dx, grad.norm1_weight, grad.norm1_bias, ws.dh1.data(), ws.mean1.data(),
                          ws.rstd1.data(), x, w.norm1_weight, static_cast<int>(N), C);
}

std::size_t pre_norm_step_scratch_size(int B, int C, int H, int F, int max_len) {
  const std::size_t b = static_cast<std::size_t>(B);
  return b * (5 * static_cast<std::size_t>(C) + 2 * static_cast<std::size_t>(F) + 4) +
         kernels::attention_step_scratch_size({.B = B, .C = C, .H = H, .L = max_len});
}

template <class Real>
void pre_norm_block_step(Real* out, Real* scratch, Real* keys, Real* values, int t, int max_len, const Real* x,
                            const PreNormTensors<Real>& w, const BlockDims& d) {
  const int B = d.B, C = d.C, F = d.F;
  const std::size_t BC = static_cast<std::size_t>(B) * C, BF = static_cast<std::size_t>(B) * F;
  Real* h1 = scratch;       // (B, C) LN1(x)
  Real* a = h1 + BC;        // (B, C) attention
  Real* x1 = a + BC;        // (B, C) x + a
  Real* h2 = x1 + BC;       // (B, C) LN2(x1)
  Real* f2 = h2 + BC;       // (B, C)
  Real* f1 = f2 + BC;       // (B, F)
  Real* g1 = f1 + BF;       // (B, F)
  Real* stats = g1 + BF;    // mean1, rstd1, mean2, rstd2 (B each)
  Real* attn_scratch = stats + 4 * static_cast<std::size_t>(B);
  kernels::layer_norm_forward(h1, stats, stats + B, x, w.norm1_weight, w.norm1_bias, B, C);
  kernels::attention_step(a, attn_scratch, keys, values, t, h1,
                     kernels::mha_packed<Real>(w.in_proj_weight, w.in_proj_bias, w.out_proj_weight, w.out_proj_bias, C),
                     {.B = B, .C = C, .H = d.H, .L = max_len});
  for (std::size_t i = 0; i < BC; ++i) x1[i] = x[i] + a[i];
  kernels::layer_norm_forward(h2, stats + 2 * B, stats + 3 * B, x1, w.norm2_weight, w.norm2_bias, B, C);
  kernels::linear_forward(f1, h2, w.ff1_weight, w.ff1_bias, B, C, F);
  kernels::gelu_forward(g1, f1, BF);
  kernels::linear_forward(f2, g1, w.ff2_weight, w.ff2_bias, B, F, C);
  for (std::size_t i = 0; i < BC; ++i) out[i] = x1[i] + f2[i];
}

template struct PreNormWorkspace<float>;
template struct PreNormWorkspace<double>;
template void pre_norm_block_draw_masks<float>(PreNormWorkspace<float>&, const BlockDims&, random::Generator&);
template void pre_norm_block_draw_masks<double>(PreNormWorkspace<double>&, const BlockDims&, random::Generator&);
template void pre_norm_block_take_masks<float>(PreNormWorkspace<float>&, const PreNormWorkspace<float>&, int,
                                                  const BlockDims&);
template void pre_norm_block_take_masks<double>(PreNormWorkspace<double>&, const PreNormWorkspace<double>&, int,
                                                   const BlockDims&);
template void pre_norm_block_forward_drawn<float>(float*, PreNormWorkspace<float>&, const float*,
                                                     const PreNormTensors<float>&, const BlockDims&,
                                                     const DistinctRows<float>*);
template void pre_norm_block_forward_drawn<double>(double*, PreNormWorkspace<double>&, const double*,
                                                      const PreNormTensors<double>&, const BlockDims&,
                                                      const DistinctRows<double>*);
template void pre_norm_block_forward<float>(float*, PreNormWorkspace<float>&, const float*,
                                               const PreNormTensors<float>&, const BlockDims&, random::Generator*,
                                               const DistinctRows<float>*);
template void pre_norm_block_forward<double>(double*, PreNormWorkspace<double>&, const double*,
                                                const PreNormTensors<double>&, const BlockDims&, random::Generator*,
                                                const DistinctRows<double>*);
template void pre_norm_block_backward<float>(float*, const PreNormTensors<float>&, PreNormWorkspace<float>&,
                                                const float*, const float*, const PreNormTensors<float>&,
                                                const BlockDims&, const DistinctRows<float>*);
template void pre_norm_block_backward<double>(double*, const PreNormTensors<double>&, PreNormWorkspace<double>&,
                                                 const double*, const double*, const PreNormTensors<double>&,
                                                 const BlockDims&, const DistinctRows<double>*);
template void pre_norm_block_step<float>(float*, float*, float*, float*, int, int, const float*,
                                            const PreNormTensors<float>&, const BlockDims&);
template void pre_norm_block_step<double>(double*, double*, double*, double*, int, int, const double*,
                                             const PreNormTensors<double>&, const BlockDims&);

}  // namespace attnlab::kernels
