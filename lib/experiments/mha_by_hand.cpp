#include "experiments/mha_by_hand.hpp"

#include <cmath>
#include <limits>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xsort.hpp>
#include <xtensor/xview.hpp>

#include "tensor/gemm.hpp"

namespace attnlab::experiments {

namespace {

using xt::all;
using xt::newaxis;

// linear(X, W, b) = X W^T + b over the last dimension: (L, B, In) -> (L, B, Out)
xt::xtensor<float, 3> linear(const xt::xtensor<float, 3>& X, const xt::xtensor<float, 2>& W,
                             const xt::xtensor<float, 1>& b) {
  const std::size_t L = X.shape()[0], B = X.shape()[1], In = X.shape()[2], Out = W.shape()[0];
  const xt::xtensor<float, 2> X2 = xt::reshape_view(X, {L * B, In});
  const xt::xtensor<float, 2> Wc = W;  // contiguous
  // OpenBLAS for every shape, as F.linear's matmul: these figures are compared with PyTorch's
  xt::xtensor<float, 2> Y = xt::zeros<float>({L * B, Out});
  attnlab::tensor::sgemm_openblas(false, true, int(L * B), int(Out), int(In), 1.f, X2.data(), int(In), Wc.data(),
                                  int(In), 0.f, Y.data(), int(Out));
  if (b.size()) Y += xt::view(b, newaxis(), all());
  return xt::reshape_view(Y, {L, B, Out});
}

// x.view(L, B*H, E/H).transpose(0, 1): (L, B, E) -> (B·H, L, E/H), contiguous
xt::xtensor<float, 3> split_heads(const xt::xtensor<float, 3>& x, std::size_t H) {
  const std::size_t L = x.shape()[0], B = x.shape()[1], E = x.shape()[2];
  return xt::transpose(xt::reshape_view(x, {L, B * H, E / H}), {1, 0, 2});
}

// bmm(a, b): (n, i, k) · (n, k, j) -> (n, i, j)
xt::xtensor<float, 3> bmm(const xt::xtensor<float, 3>& a, const xt::xtensor<float, 3>& b) {
  xt::xtensor<float, 3> out = xt::zeros<float>({a.shape()[0], a.shape()[1], b.shape()[2]});
  for (std::size_t n = 0; n < a.shape()[0]; ++n) {
    const xt::xtensor<float, 2> an = xt::view(a, n, all(), all()), bn = xt::view(b, n, all(), all());
    const int I = int(an.shape()[0]), K = int(an.shape()[1]), J = int(bn.shape()[1]);
    xt::xtensor<float, 2> on = xt::zeros<float>({std::size_t(I), std::size_t(J)});
    attnlab::tensor::sgemm_openblas(false, false, I, J, K, 1.f, an.data(), K, bn.data(), J, 0.f, on.data(), J);
    xt::view(out, n, all(), all()) = on;
  }
  return out;
}

}  // namespace

ByHandResult mha_by_hand(const xt::xtensor<float, 3>& Q, const xt::xtensor<float, 3>& K,
                         const xt::xtensor<float, 3>& V, const xt::xtensor<float, 2>& Wq,
                         const xt::xtensor<float, 2>& Wk, const xt::xtensor<float, 2>& Wv,
                         const xt::xtensor<float, 2>& Wo, const xt::xtensor<float, 1>& Bq,
                         const xt::xtensor<float, 1>& Bk, const xt::xtensor<float, 1>& Bv,
                         const xt::xtensor<float, 1>& Bo, int H_, const xt::xtensor<bool, 2>* key_mask,
                         const xt::xtensor<float, 2>* attn_mask) {
  const std::size_t N = Q.shape()[0], B = Q.shape()[1], E = Q.shape()[2], M = K.shape()[0], H = H_;
  const xt::xtensor<float, 3> q = split_heads(linear(Q, Wq, Bq), H);  // (B·H, N, E/H)
  const xt::xtensor<float, 3> k = split_heads(linear(K, Wk, Bk), H);  // (B·H, M, E/H)
  const xt::xtensor<float, 3> v = split_heads(linear(V, Wv, Bv), H);  // (B·H, M, E/H)

  const xt::xtensor<float, 3> kt = xt::transpose(k, {0, 2, 1});
  xt::xtensor<float, 3> W = bmm(q, kt) * std::pow(float(E / H), -0.5f);  // (B·H, N, M)
  if (attn_mask) W += xt::view(*attn_mask, newaxis(), all(), all());        // (N, M) -> (1, N, M)
  if (key_mask) {                                                      // (B, 1, 1, M)
    auto W4 = xt::reshape_view(W, {B, H, N, M});
    W4 = xt::where(xt::view(*key_mask, all(), newaxis(), newaxis(), all()), -std::numeric_limits<float>::infinity(), W4);
  }
  // softmax over the last dimension, the row maximum evaluated first
  const xt::xtensor<float, 2> row_max = xt::amax(W, {2});
  W = xt::exp(W - xt::view(row_max, all(), all(), newaxis()));
  const xt::xtensor<float, 2> row_sum = xt::sum(W, {2});
  W = W / xt::view(row_sum, all(), all(), newaxis());

  const xt::xtensor<float, 3> A = bmm(W, v);                                           // (B·H, N, E/H)
  const xt::xtensor<float, 3> A_nbe = xt::reshape_view(xt::eval(xt::transpose(A, {1, 0, 2})), {N, B, E});
  ByHandResult r;
  r.output = linear(A_nbe, Wo, Bo);
  r.weights = xt::sum(xt::reshape_view(W, {B, H, N, M}), {1}) / float(H);
  return r;
}

}  // namespace attnlab::experiments
