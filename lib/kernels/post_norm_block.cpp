#include "kernels/post_norm_block.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/attention_cache.hpp"
#include "kernels/dropout.hpp"
#include "kernels/layer_norm.hpp"
#include "kernels/linear.hpp"
#include "kernels/relu.hpp"

namespace attnlab::kernels {

std::vector<BlockParamSpec> post_norm_block_param_specs(int C, int F) {
  return {{"self_attn.in_proj_weight", {3 * C, C}}, {"self_attn.in_proj_bias", {3 * C}},
          {"self_attn.out_proj.weight", {C, C}},    {"self_attn.out_proj.bias", {C}},
          {"linear1.weight", {F, C}},               {"linear1.bias", {F}},
          {"linear2.weight", {C, F}},               {"linear2.bias", {C}},
          {"norm1.weight", {C}},                    {"norm1.bias", {C}},
          {"norm2.weight", {C}},                    {"norm2.bias", {C}}};
}

void post_norm_block_init(random::Generator& gen, const PostNormTensors<float>& w, int C, int F) {
  // TransformerEncoderLayer.__init__: self_attn, linear1, dropout, linear2, norm1, norm2
  kernels::multihead_attention_init(gen, w.in_proj_weight, w.in_proj_bias, w.out_proj_weight, w.out_proj_bias, C);
  kernels::linear_init(gen, w.linear1_weight, w.linear1_bias, C, F);
  kernels::linear_init(gen, w.linear2_weight, w.linear2_bias, F, C);
  kernels::layer_norm_init(w.norm1_weight, w.norm1_bias, C);
  kernels::layer_norm_init(w.norm2_weight, w.norm2_bias, C);
}

template <class Real>
PostNormWorkspace<Real>::PostNormWorkspace(int max_batch_, int T_, int C, int H, int F)
    : max_batch(max_batch_), T(T_) {
  const kernels::MhaDims d = kernels::mha_dims(max_batch, T, T, C, H);
  const std::size_t N = static_cast<std::size_t>(max_batch) * T;
  for (auto* v : {&a, &s1, &y, &f2, &s2, &ds2, &dy, &df2, &ds1, &da}) v->resize(N * C);
  for (auto* v : {&mean1, &rstd1, &mean2, &rstd2}) v->resize(N);
  for (auto* v : {&f1, &r, &dr, &df1}) v->resize(N * F);
  mha_cache.resize(kernels::mha_cache_size(d));
  mha_scratch.resize(kernels::mha_scratch_size(d));
  keep_attn.resize(static_cast<std::size_t>(max_batch) * H * T * T);
  keep1.resize(N * C);
  keep_mid.resize(N * F);
  keep2.resize(N * C);
}

template <class Real>
void post_norm_block_forward(Real* out, PostNormWorkspace<Real>& ws, const Real* x, const PostNormTensors<Real>& w,
                             const BlockDims& d, random::Generator* train) {
  if (d.B < 1 || d.B > ws.max_batch || d.T < 1 || d.T > ws.T)
    throw std::invalid_argument("post-norm block: batch " + std::to_string(d.B) + " of length " +
                                std::to_string(d.T) + " does not fit the workspace (" +
                                std::to_string(ws.max_batch) + " of " + std::to_string(ws.T) + ")");
  const kernels::MhaDims md = kernels::mha_dims(d.B, d.T, d.T, d.C, d.H);
  const int N = d.B * d.T, C = d.C, F = d.F;
  const std::size_t NC = static_cast<std::size_t>(N) * C, NF = static_cast<std::size_t>(N) * F;
  ws.dropped = train != nullptr && d.dropout > 0.0;
  // a = MHA(x, x, x), dropout on its weights when training (the first mask drawn)
  kernels::MhaDropout<Real> attn_drop;
  if (ws.dropped) {
    ws.scale = static_cast<Real>(kernels::mha_draw_dropout(*train, ws.keep_attn.data(), md, d.dropout));
    attn_drop = {ws.keep_attn.data(), ws.scale};
  }
  kernels::MhaMasks<Real> masks;
  masks.causal = d.causal;
  masks.key_padding = d.key_padding;
  kernels::multihead_attention_forward<Real>(ws.a.data(), nullptr, kernels::MhaWeights::none, ws.mha_cache.data(), x, x, x,
                                        masks, attn_drop, w.in_proj_weight, w.in_proj_bias, w.out_proj_weight,
                                        w.out_proj_bias, md);
  // s1 = x + dropout1(a); y = LN1(s1)
  if (ws.dropped) {
    train->dropout_mask(ws.keep1.data(), NC, d.dropout);
    kernels::dropout_forward(ws.s1.data(), ws.a.data(), ws.keep1.data(), ws.scale, NC);
    for (std::size_t i = 0; i < NC; ++i) ws.s1[i] += x[i];
  } else {
    for (std::size_t i = 0; i < NC; ++i) ws.s1[i] = x[i] + ws.a[i];
  }
  kernels::layer_norm_forward(ws.y.data(), ws.mean1.data(), ws.rstd1.data(), ws.s1.data(), w.norm1_weight, w.norm1_bias,
                         N, C);
  // r = dropout(relu(linear1(y))); f2 = linear2(r)
  kernels::linear_forward(ws.f1.data(), ws.y.data(), w.linear1_weight, w.linear1_bias, N, C, F);
  kernels::relu_forward(ws.r.data(), ws.f1.data(), NF);
  if (ws.dropped) {
    train->dropout_mask(ws.keep_mid.data(), NF, d.dropout);
    kernels::dropout_forward(ws.r.data(), ws.r.data(), ws.keep_mid.data(), ws.scale, NF);
  }
  kernels::linear_forward(ws.f2.data(), ws.r.data(), w.linear2_weight, w.linear2_bias, N, F, C);
  // s2 = y + dropout2(f2); out = LN2(s2)
  if (ws.dropped) {
    train->dropout_mask(ws.keep2.data(), NC, d.dropout);
    kernels::dropout_forward(ws.s2.data(), ws.f2.data(), ws.keep2.data(), ws.scale, NC);
    for (std::size_t i = 0; i < NC; ++i) ws.s2[i] += ws.y[i];
  } else {
    for (std::size_t i = 0; i < NC; ++i) ws.s2[i] = ws.y[i] + ws.f2[i];
  }
  kernels::layer_norm_forward(out, ws.mean2.data(), ws.rstd2.data(), ws.s2.data(), w.norm2_weight, w.norm2_bias, N, C);
}

template <class Real>
void post_norm_block_backward(Real* dx, const PostNormTensors<Real>& grad, PostNormWorkspace<Real>& ws,
                              const Real* dout, const Real* x, const PostNormTensors<Real>& w, const BlockDims& d) {
  const kernels::MhaDims md = kernels::mha_dims(d.B, d.T, d.T, d.C, d.H);
  const int N = d.B * d.T, C = d.C, F = d.F;
  const std::size_t NC = static_cast<std::size_t>(N) * C, NF = static_cast<std::size_t>(N) * F;
  // out = LN2(s2)
  std::fill_n(ws.ds2.begin(), NC, Real(0));
  kernels::layer_norm_backward(ws.ds2.data(), grad.norm2_weight, grad.norm2_bias, dout, ws.mean2.data(), ws.rstd2.data(),
                          ws.s2.data(), w.norm2_weight, N, C);
  // s2 = y + dropout2(f2): y gets ds2 directly, f2 through the mask
  std::copy_n(ws.ds2.begin(), NC, ws.dy.begin());
  if (ws.dropped) {
    std::fill_n(ws.df2.begin(), NC, Real(0));
    kernels::dropout_backward(ws.df2.data(), ws.ds2.data(), ws.keep2.data(), ws.scale, NC);
  } else {
    std::copy_n(ws.ds2.begin(), NC, ws.df2.begin());
  }
  // f2 = linear2(r), r = dropout(relu(f1)), f1 = linear1(y)
  std::fill_n(ws.dr.begin(), NF, Real(0));
  kernels::linear_backward(ws.dr.data(), grad.linear2_weight, grad.linear2_bias, ws.df2.data(), ws.r.data(),
                      w.linear2_weight, N, F, C);
  if (ws.dropped)  // in place: each element is scaled by its own mask entry
    kernels::dropout_forward(ws.dr.data(), ws.dr.data(), ws.keep_mid.data(), ws.scale, NF);
  std::fill_n(ws.df1.begin(), NF, Real(0));
  kernels::relu_backward(ws.df1.data(), ws.dr.data(), ws.f1.data(), NF);
  kernels::linear_backward(ws.dy.data(), grad.linear1_weight, grad.linear1_bias, ws.df1.data(), ws.y.data(),
                      w.linear1_weight, N, C, F);
  // y = LN1(s1), s1 = x + dropout1(a)
  std::fill_n(ws.ds1.begin(), NC, Real(0));
  kernels::layer_norm_backward(ws.ds1.data(), grad.norm1_weight, grad.norm1_bias, ws.dy.data(), ws.mean1.data(),
                          ws.rstd1.data(), ws.s1.data(), w.norm1_weight, N, C);
  for (std::size_t i = 0; i < NC; ++i) dx[i] += ws.ds1[i];
  const Real* da = ws.ds1.data();
  if (ws.dropped) {
    std::fill_n(ws.da.begin(), NC, Real(0));
    kernels::dropout_backward(ws.da.data(), ws.ds1.data(), ws.keep1.data(), ws.scale, NC);
    da = ws.da.data();
  }
  // a = MHA(x, x, x): one buffer for the three inputs adds their sum into dx
  kernels::MhaDropout<Real> attn_drop;
  if (ws.dropped) attn_drop = {ws.keep_attn.data(), ws.scale};
  kernels::multihead_attention_backward<Real>(dx, dx, dx, grad.in_proj_weight, grad.in_proj_bias, grad.out_proj_weight,
                                         grad.out_proj_bias, ws.mha_scratch.data(), da, ws.mha_cache.data(), x, x, x,
                                         attn_drop, w.in_proj_weight, w.out_proj_weight, md);
}

std::size_t post_norm_step_scratch_size(int B, int C, int H, int F, int max_len) {
  const std::size_t b = static_cast<std::size_t>(B);
  return b * (4 * static_cast<std::size_t>(C) + 2 * static_cast<std::size_t>(F) + 4) +
         kernels::attention_step_scratch_size({.B = B, .C = C, .H = H, .L = max_len});
}

template <class Real>
void post_norm_block_step(Real* out, Real* scratch, Real* keys, Real* values, int t, int max_len, const Real* x,
                          const PostNormTensors<Real>& w, const BlockDims& d) {
  const int B = d.B, C = d.C, F = d.F;
  const std::size_t BC = static_cast<std::size_t>(B) * C, BF = static_cast<std::size_t>(B) * F;
  Real* a = scratch;      // (B, C) attention
  Real* s = a + BC;       // (B, C) x + a, then y + f2
  Real* y = s + BC;       // (B, C) LN1(x + a)
  Real* f2 = y + BC;      // (B, C)
  Real* f1 = f2 + BC;     // (B, F)
  Real* r = f1 + BF;      // (B, F)
  Real* stats = r + BF;   // mean, rstd of the two norms (B each)
  Real* attn_scratch = stats + 4 * static_cast<std::size_t>(B);
  kernels::attention_step(a, attn_scratch, keys, values, t, x,
                     kernels::mha_packed<Real>(w.in_proj_weight, w.in_proj_bias, w.out_proj_weight, w.out_proj_bias, C),
                     {.B = B, .C = C, .H = d.H, .L = max_len});
  for (std::size_t i = 0; i < BC; ++i) s[i] = x[i] + a[i];
  kernels::layer_norm_forward(y, stats, stats + B, s, w.norm1_weight, w.norm1_bias, B, C);
  kernels::linear_forward(f1, y, w.linear1_weight, w.linear1_bias, B, C, F);
  kernels::relu_forward(r, f1, BF);
  kernels::linear_forward(f2, r, w.linear2_weight, w.linear2_bias, B, F, C);
  for (std::size_t i = 0; i < BC; ++i) s[i] = y[i] + f2[i];
  kernels::layer_norm_forward(out, stats + 2 * B, stats + 3 * B, s, w.norm2_weight, w.norm2_bias, B, C);
}

template struct PostNormWorkspace<float>;
template struct PostNormWorkspace<double>;
#define ATTNLAB_POST_NORM_INSTANTIATE(R)                                                                          \
  template void post_norm_block_forward<R>(R*, PostNormWorkspace<R>&, const R*, const PostNormTensors<R>&,        \
                                           const BlockDims&, random::Generator*);                                 \
  template void post_norm_block_backward<R>(R*, const PostNormTensors<R>&, PostNormWorkspace<R>&, const R*,       \
                                            const R*, const PostNormTensors<R>&, const BlockDims&);               \
  template void post_norm_block_step<R>(R*, R*, R*, R*, int, int, const R*, const PostNormTensors<R>&,            \
                                        const BlockDims&);
ATTNLAB_POST_NORM_INSTANTIATE(float)
ATTNLAB_POST_NORM_INSTANTIATE(double)
#undef ATTNLAB_POST_NORM_INSTANTIATE

}  // namespace attnlab::kernels
