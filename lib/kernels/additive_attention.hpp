// Additive (Bahdanau) attention: the alignment model of Bahdanau, Cho &
// Bengio 2015 ("Neural Machine Translation by Jointly Learning to Align and
// Translate", §3.1 and Appendix A.1.2), the nn.MultiheadAttention page's (data/sources/torch_mha_page.txt)
// f(u, v) = tanh(u·W1 + v·W2)·b with W1 = W_a^T, W2 = U_a^T, b = v_a:
//
//   pk[b,j]   = U_a h[b,j]                        (B, S, A): once per source sentence
//   pq[b,i]   = W_a s[b,i]                        (B, T, A)
//   e[b,i,j]  = v_a · tanh(pq[b,i] + pk[b,j])     -inf where key j of batch b is padding
//   w[b,i,:]  = softmax_j(e[b,i,:])               (the alignment weights alpha_ij)
//   c[b,i]    = sum_j w[b,i,j] value[b,j]         (the context vector c_i)
//
// U_a h_j does not depend on the query, so a decoder projects the annotations
// once (additive_project_keys, a bias-free linear layer) and then calls
// additive_attention_forward once per output step with T = 1 (Appendix A.1.2
// notes the saving); T > 1 scores every query at once (teacher forcing).
// No biases, as in the paper. A query whose keys are all padding gets zero
// weights and a zero context (softmax of all -inf would be NaN).
//
// Letters: B batch, T queries (decoder steps), S keys (source length), Dq the
// query width (decoder state), Dk the key width (annotation), A the hidden
// width of the alignment network, Dv the value width (Dk when the values are
// the annotations themselves, as in the paper).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnlab::random {
class Generator;
}

namespace attnlab::kernels {

struct AdditiveDims {
  int B = 0, T = 0, S = 0;
  int Dq = 0, Dk = 0, A = 0, Dv = 0;
};

/// Throws std::invalid_argument unless every size is >= 1, naming them.
void check_additive_dims(const AdditiveDims& d);

/// Scratch of the forward pass: pq (B·T·A).
std::size_t additive_forward_scratch_size(const AdditiveDims& d);
/// Scratch of the backward pass: pq and d(pq) (B·T·A each), one row of S, one of A.
std::size_t additive_backward_scratch_size(const AdditiveDims& d);

/// Forward pass.
///   context (B, T, Dv), weights (B, T, S)   written
///   scratch additive_forward_scratch_size(d)
///   query (B, T, Dq), projected_keys (B, S, A) = keys · U_a^T, values (B, S, Dv)
///   key_padding (B, S): nonzero = padding (PyTorch's True = blocked), or nullptr
///   W_a (A, Dq), v_a (A)  (PyTorch's W_a.weight and v_a.weight (1, A))
template <class T>
void additive_attention_forward(T* context, T* weights, T* scratch, const T* query, const T* projected_keys,
                                const T* values, const std::uint8_t* key_padding, const T* W_a, const T* v_a,
                                const AdditiveDims& d);

/// Backward pass: ADDS into d_query (B, T, Dq), d_projected_keys (B, S, A),
/// d_values (B, S, Dv), dW_a (A, Dq), dv_a (A) (any may be nullptr) the
/// gradients of a loss given d_context (B, T, Dv) and, when the weights feed
/// the loss too, d_weights (B, T, S) (nullptr = none), with the forward's
/// inputs and weights. tanh is recomputed from pq + pk rather than stored: a
/// decoder step keeps only its weights. Pass d_projected_keys on to
/// additive_project_keys_backward once all steps are done.
template <class T>
void additive_attention_backward(T* d_query, T* d_projected_keys, T* d_values, T* dW_a, T* dv_a, T* scratch,
                                 const T* d_context, const T* d_weights, const T* query, const T* projected_keys,
                                 const T* values, const T* weights, const T* W_a, const T* v_a,
                                 const AdditiveDims& d);

/// pk (B·S, A) = keys (B·S, Dk) · U_a^T, U_a (A, Dk); rows = B·S.
template <class T>
void additive_project_keys(T* projected_keys, const T* keys, const T* U_a, int rows, int Dk, int A);

/// ADDS d_keys (B·S, Dk) += d_pk · U_a and dU_a (A, Dk) += d_pk^T · keys.
template <class T>
void additive_project_keys_backward(T* d_keys, T* dU_a, const T* d_projected_keys, const T* keys, const T* U_a,
                                    int rows, int Dk, int A);

/// Initialises as the PyTorch twin (scripts/make_attention_page_goldens.py)
/// constructs W_a = Linear(Dq, A, bias=False), U_a = Linear(Dk, A, bias=False),
/// v_a = Linear(A, 1, bias=False), in that order: kaiming-uniform rows
/// (kernels::linear_init), A·Dq + A·Dk + A words.
void additive_attention_init(random::Generator& gen, float* W_a, float* U_a, float* v_a, int Dq, int Dk, int A);

}  // namespace attnlab::kernels
