// Additive (Bahdanau) attention, the alignment model of RNNsearch (Bahdanau,
// Cho & Bengio 2015, §3.1 and Appendix A.1.2; the nn.MultiheadAttention page's (data/sources/torch_mha_page.txt)
// f(u, v) = tanh(u·W1 + v·W2)·b):
//   e_ij = v_a^T tanh(W_a s_i + U_a h_j),  alpha_ij = softmax_j(e_ij),  c_i = sum_j alpha_ij h_j
// The maths is lib/kernels/additive_attention.hpp.
//
// U_a h_j does not depend on the decoder step, so a decoder projects the
// annotations once per sentence and then attends once per output step:
//
//   attnlab::nn::AdditiveAttention att(attnlab::nn::AdditiveAttentionOptions(n_dec, n_enc, n_align), gen);
//   attnlab::Tensor<3> pk = att.project_keys(h);                  // (B, S, A) = U_a h_j, once
//   for (int i = 0; i < T; ++i) {
//     auto [c, alpha] = att.forward(s_prev, pk, h, {.key_padding_mask = padding});   // c (B, n_enc), alpha (B, S)
//     ...                                                        // s_i = f(s_{i-1}, y_{i-1}, c_i)
//   }
//
// The backward pass is stateless: give it what forward returned, per step,
// and add the steps' d(projected_keys) before project_keys_backward.
// Parameters, as the PyTorch twin in scripts/make_attention_page_goldens.py
// names them: W_a.weight (A, query_size), U_a.weight (A, key_size),
// v_a.weight (1, A); no biases, as in the paper.
//
// Letters: B batch, T decoder steps scored at once, S source length,
// A = hidden_size, Dv the value width.
#pragma once

#include "attnlab/nn/module.hpp"
#include "attnlab/nn/multihead_attention.hpp"
#include "attnlab/options.hpp"

namespace attnlab::nn {

struct AdditiveAttentionOptions {
  AdditiveAttentionOptions(int query_size, int key_size, int hidden_size)
      : query_size_(query_size), key_size_(key_size), hidden_size_(hidden_size) {}
  ATTNLAB_ARG(int, query_size);   // the decoder state s_{i-1}
  ATTNLAB_ARG(int, key_size);     // the annotation h_j
  ATTNLAB_ARG(int, hidden_size);  // the alignment network's width (n' in the paper)
};

/// forward()'s keyword arguments.
struct AdditiveAttentionForwardOptions {
  BoolMask<2> key_padding_mask;  // (B, S), True = key j of batch b is padding
};

/// (context, weights): (B, Dv) and (B, S) for one step, (B, T, Dv) and (B, T, S) for T.
template <std::size_t N>
struct AdditiveAttentionOutput {
  Tensor<N> context;
  Tensor<N> weights;
};

template <std::size_t N>
struct AdditiveAttentionGradients {
  Tensor<N> query;
  Tensor<3> projected_keys;
  Tensor<3> values;
};

/// Initialised from `gen` as the twin constructs W_a, U_a, v_a (nn.Linear
/// without bias, in that order). Throws std::invalid_argument for sizes below 1.
class AdditiveAttention : public Module {
 public:
  AdditiveAttention(const AdditiveAttentionOptions& options, Generator& gen, const Scope& scope = {});

  /// U_a h: (B, S, key_size) -> (B, S, hidden_size).
  Tensor<3> project_keys(const Tensor<3>& keys) const;
  /// ADDS U_a's gradient and returns d(loss)/d(keys), given the summed
  /// d(loss)/d(projected_keys) of every step and the keys.
  Tensor<3> project_keys_backward(const Tensor<3>& grad_projected_keys, const Tensor<3>& keys);

  /// One decoder step: query (B, query_size), projected_keys (B, S, hidden_size),
  /// values (B, S, Dv) -> context (B, Dv), weights (B, S).
  AdditiveAttentionOutput<2> forward(const Tensor<2>& query, const Tensor<3>& projected_keys,
                                     const Tensor<3>& values, const AdditiveAttentionForwardOptions& options = {});
  /// T queries at once: query (B, T, query_size) -> context (B, T, Dv), weights (B, T, S).
  AdditiveAttentionOutput<3> forward(const Tensor<3>& query, const Tensor<3>& projected_keys,
                                     const Tensor<3>& values, const AdditiveAttentionForwardOptions& options = {});

  /// ADDS W_a's and v_a's gradients and returns the inputs' gradients, given
  /// d(loss)/d(context), optionally d(loss)/d(weights) (nullptr = none), and
  /// the forward's inputs and returned weights.
  AdditiveAttentionGradients<2> backward(const Tensor<2>& grad_context, const Tensor<2>* grad_weights,
                                         const Tensor<2>& query, const Tensor<3>& projected_keys,
                                         const Tensor<3>& values, const Tensor<2>& weights);
  AdditiveAttentionGradients<3> backward(const Tensor<3>& grad_context, const Tensor<3>* grad_weights,
                                         const Tensor<3>& query, const Tensor<3>& projected_keys,
                                         const Tensor<3>& values, const Tensor<3>& weights);

  const AdditiveAttentionOptions& options() const { return o_; }
  TensorView<2> W_a() const;  // (hidden_size, query_size)
  TensorView<2> U_a() const;  // (hidden_size, key_size)
  TensorView<2> v_a() const;  // (1, hidden_size)

 private:
  void check(const char* where, std::size_t B, std::size_t T, const std::vector<std::size_t>& query,
             const Tensor<3>& projected_keys, const Tensor<3>& values) const;
  void run(float* context, float* weights, const float* query, const Tensor<3>& pk, const Tensor<3>& values,
           const std::uint8_t* padding, int B, int T) const;
  void run_backward(float* d_query, float* d_pk, float* d_values,
                    const float* d_context, const float* d_weights, const float* query, const Tensor<3>& pk,
                    const Tensor<3>& values, const float* weights, int B, int T);
  AdditiveAttentionOptions o_;
  std::size_t w_, u_, v_;
};

}  // namespace attnlab::nn
