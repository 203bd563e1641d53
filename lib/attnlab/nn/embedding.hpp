// nn.Embedding over xtensor: a lookup table (torch/nn/modules/sparse.py).
// The maths is lib/kernels/embedding.hpp. Token ids are int32 (PyTorch's are int64).
#pragma once

#include <cstdint>

#include "attnlab/nn/module.hpp"
#include "attnlab/options.hpp"

namespace attnlab::nn {

struct EmbeddingOptions {
  EmbeddingOptions(int num_embeddings, int embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  ATTNLAB_ARG(int, num_embeddings);
  ATTNLAB_ARG(int, embedding_dim);
};

/// nn.Embedding(num_embeddings, embedding_dim): weight (V, D), initialised
/// normal_(0, 1) from `gen` as PyTorch does. Throws std::invalid_argument for
/// sizes below 1.
class Embedding : public Module {
 public:
  Embedding(const EmbeddingOptions& options, Generator& gen, const Scope& scope = {});

  /// out (*, D) = weight[ids]; throws std::out_of_range naming the position
  /// and the id when an id is outside [0, V) (PyTorch's IndexError).
  template <std::size_t N>
  Tensor<N + 1> forward(const xt::xtensor<std::int32_t, N>& ids) const {
    std::array<std::size_t, N + 1> shape;
    std::copy(ids.shape().begin(), ids.shape().end(), shape.begin());
    shape[N] = std::size_t(o_.embedding_dim());
    Tensor<N + 1> out = Tensor<N + 1>::from_shape(shape);
    forward_rows(out.data(), ids.data(), ids.size());
    return out;
  }
  /// ADDS d(loss)/d(weight) (a scatter-add over the ids of the forward pass).
  template <std::size_t N>
  void backward(const Tensor<N + 1>& grad_output, const xt::xtensor<std::int32_t, N>& ids) {
    std::vector<long> want(ids.shape().begin(), ids.shape().end());
    want.push_back(o_.embedding_dim());
    check_shape("Embedding::backward", "grad_output", shape_of(grad_output), want);
    backward_rows(grad_output.data(), ids.data(), ids.size());
  }

  const EmbeddingOptions& options() const { return o_; }
  TensorView<2> weight() const;

 private:
  void forward_rows(float* out, const std::int32_t* ids, std::size_t n) const;
  void backward_rows(const float* dout, const std::int32_t* ids, std::size_t n);
  EmbeddingOptions o_;
  std::size_t w_;
};

}  // namespace attnlab::nn
