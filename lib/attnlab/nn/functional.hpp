// Functions without parameters, as torch.nn.functional: scaled dot-product
// attention by hand (data/sources/attention_page.txt §1; Vaswani et al. 2017, §3.2.1, eq. (1)).
//
//   namespace F = attnlab::nn::functional;
//   attnlab::Tensor<2> q = {{1, 0}}, k = {{1, 0}, {0, 1}}, v = {{10}, {20}};
//   auto [y, w] = F::scaled_dot_product_attention(q, k, v);   // y = [[13.3024]], w = [[0.6698, 0.3302]]
//
// It is PyTorch 1.13's torch._C._nn._scaled_dot_product_attention(q, k, v,
// attn_mask, dropout_p=0, need_attn_weights=True, is_causal) — the form of
// F.scaled_dot_product_attention that returns the weights too — including its
// mask convention: a BOOLEAN attn_mask here says which keys TAKE PART (True =
// attend), the reverse of nn.MultiheadAttention's attn_mask (True = blocked);
// a float mask is added to the scores. A query whose keys are all blocked
// gets zero weights and a zero output (PyTorch: NaN). The maths is
// lib/kernels/scaled_dot_product_attention.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab::nn::functional {

/// attn_mask: borrowed (it must outlive the call), of shape (L, S) or the full
/// (..., L, S) of the weights; bool = takes part, float = added to the scores.
struct AttentionMask {
  AttentionMask() = default;
  template <std::size_t N>
  AttentionMask(const xt::xtensor<bool, N>& m)  // NOLINT: implicit, as passing a tensor in Python
      : keep(reinterpret_cast<const std::uint8_t*>(m.data())), shape(m.shape().begin(), m.shape().end()) {}
  template <std::size_t N>
  AttentionMask(const xt::xtensor<float, N>& m)  // NOLINT
      : add(m.data()), shape(m.shape().begin(), m.shape().end()) {}
  const std::uint8_t* keep = nullptr;
  const float* add = nullptr;
  std::vector<std::size_t> shape;
};

/// (output, weights) as PyTorch returns them: output (..., L, Ev), weights (..., L, S).
template <std::size_t N>
struct AttentionOutput {
  Tensor<N> output;
  Tensor<N> weights;
};

/// Gradients of the three inputs.
template <std::size_t N>
struct AttentionGradients {
  Tensor<N> query, key, value;
};

namespace detail {
struct SdpaShape {
  int B, L, S, E, Ev;
  bool per_batch_mask;
};
SdpaShape sdpa_shape(const std::vector<std::size_t>& q, const std::vector<std::size_t>& k,
                     const std::vector<std::size_t>& v, const AttentionMask& mask);
void sdpa_forward_float(float* out, float* weights, const float* q, const float* k, const float* v,
                        const AttentionMask& mask, bool is_causal, const SdpaShape& s);
void sdpa_backward_float(float* dq, float* dk, float* dv, const float* dout, const float* dweights,
                         const float* weights, const float* q, const float* k, const float* v, const SdpaShape& s);
}  // namespace detail

/// softmax(q k^T / sqrt(E) + mask) v over the last two dimensions:
///   query (..., L, E), key (..., S, E), value (..., S, Ev), any leading
///   dimensions equal in all three (rank N >= 2; (L, E) for one unbatched query set)
///   attn_mask (L, S) or (..., L, S): bool True = takes part, float added
///   is_causal: query i sees keys 0 .. i (triu(ones(L, S), 1) blocked)
/// Returns the output (..., L, Ev) and the weights (..., L, S).
/// Throws std::invalid_argument naming the argument, its shape and the shape
/// expected, or for an empty dimension.
template <std::size_t N>
AttentionOutput<N> scaled_dot_product_attention(const Tensor<N>& query, const Tensor<N>& key, const Tensor<N>& value,
                                                const AttentionMask& attn_mask = {}, bool is_causal = false) {
  static_assert(N >= 2, "scaled_dot_product_attention: tensors of rank >= 2, (..., L, E)");
  const auto s = detail::sdpa_shape(shape_of(query), shape_of(key), shape_of(value), attn_mask);
  auto out_shape = query.shape();
  out_shape[N - 1] = std::size_t(s.Ev);
  auto w_shape = query.shape();
  w_shape[N - 1] = std::size_t(s.S);
  AttentionOutput<N> r{Tensor<N>::from_shape(out_shape), Tensor<N>::from_shape(w_shape)};
  detail::sdpa_forward_float(r.output.data(), r.weights.data(), query.data(), key.data(), value.data(), attn_mask,
                             is_causal, s);
  return r;
}

/// The backward pass: the gradients of a loss with respect to query, key and
/// value, given d(loss)/d(output), optionally d(loss)/d(weights) (nullptr =
/// the weights do not enter the loss), the forward's inputs and the weights
/// it returned (masks are not needed: blocked weights are 0).
template <std::size_t N>
AttentionGradients<N> scaled_dot_product_attention_backward(const Tensor<N>& grad_output,
                                                            const Tensor<N>* grad_weights, const Tensor<N>& query,
                                                            const Tensor<N>& key, const Tensor<N>& value,
                                                            const Tensor<N>& weights) {
  const auto s = detail::sdpa_shape(shape_of(query), shape_of(key), shape_of(value), {});
  std::vector<long> want_out(query.shape().begin(), query.shape().end()), want_w = want_out;
  want_out.back() = s.Ev;
  want_w.back() = s.S;
  check_shape("scaled_dot_product_attention_backward", "grad_output", shape_of(grad_output), want_out);
  check_shape("scaled_dot_product_attention_backward", "weights", shape_of(weights), want_w);
  if (grad_weights)
    check_shape("scaled_dot_product_attention_backward", "grad_weights", shape_of(*grad_weights), want_w);
  AttentionGradients<N> g{xt::zeros<float>(query.shape()), xt::zeros<float>(key.shape()),
                          xt::zeros<float>(value.shape())};
  detail::sdpa_backward_float(g.query.data(), g.key.data(), g.value.data(), grad_output.data(),
                              grad_weights ? grad_weights->data() : nullptr, weights.data(), query.data(), key.data(),
                              value.data(), s);
  return g;
}

}  // namespace attnlab::nn::functional
