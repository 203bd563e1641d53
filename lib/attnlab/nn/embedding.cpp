#include "attnlab/nn/embedding.hpp"

#include <stdexcept>
#include <string>

#include "kernels/embedding.hpp"

namespace attnlab::nn {

Embedding::Embedding(const EmbeddingOptions& o, Generator& gen, const Scope& scope) : Module(scope), o_(o) {
  if (o.num_embeddings() < 1 || o.embedding_dim() < 1)
    throw std::invalid_argument("Embedding: num_embeddings and embedding_dim must be >= 1, got " +
                                std::to_string(o.num_embeddings()) + " and " + std::to_string(o.embedding_dim()));
  w_ = register_parameter("weight", {o.num_embeddings(), o.embedding_dim()});
  kernels::embedding_init(gen, value(w_), o.num_embeddings(), o.embedding_dim());
}

void Embedding::forward_rows(float* out, const std::int32_t* ids, std::size_t n) const {
  if (n == 0) return;
  kernels::embedding_forward(out, ids, static_cast<const float*>(value(w_)), int(n), o_.num_embeddings(), o_.embedding_dim());
}

void Embedding::backward_rows(const float* dout, const std::int32_t* ids, std::size_t n) {
  if (n == 0) return;
  kernels::embedding_backward(grad(w_), dout, ids, int(n), o_.num_embeddings(), o_.embedding_dim());
}

TensorView<2> Embedding::weight() const {
  return view<2>(value(w_), {std::size_t(o_.num_embeddings()), std::size_t(o_.embedding_dim())});
}

}  // namespace attnlab::nn
