// The course's positions classifier (script 13's AttentionClassifier) built
// from attnlab's public modules only, with PyTorch's module names, so its
// state_dict keys are the PyTorch model's: tok.weight, pos.weight,
// attn.in_proj_weight, ..., head.bias, all in one flat parameter buffer.
//
//   h = tok(x) + pos(arange(T)); a, _ = attn(h, h, h); h = norm(h + a)
//   logits = head(h.mean(dim=1))
#pragma once

#include <memory>

#include <xtensor/xreducer.hpp>
#include <xtensor/xview.hpp>

#include "attnlab/attnlab.hpp"

namespace example {

namespace nn = attnlab::nn;

struct PositionsClassifier {
  std::shared_ptr<nn::ParameterStore> store = std::make_shared<nn::ParameterStore>();
  nn::Embedding tok, pos;
  nn::MultiheadAttention attn;
  nn::LayerNorm norm;
  nn::Linear head;

  // Constructed in PyTorch's order, so after Generator(s) the weights are
  // PyTorch's after torch.manual_seed(s).
  explicit PositionsClassifier(attnlab::Generator& gen, int width = 32, int heads = 4)
      : tok(nn::EmbeddingOptions(10, width), gen, {store, "tok"}),
        pos(nn::EmbeddingOptions(16, width), gen, {store, "pos"}),
        attn(nn::MultiheadAttentionOptions(width, heads).batch_first(true), gen, {store, "attn"}),
        norm(nn::LayerNormOptions(width), {store, "norm"}),
        head(nn::LinearOptions(width, 2), gen, {store, "head"}) {}

  // tokens (B, T) -> logits (B, 2)
  attnlab::Tensor<2> forward(const xt::xtensor<std::int32_t, 2>& tokens) {
    const std::size_t T = tokens.shape()[1];
    attnlab::Tensor<3> h = tok.forward(tokens);                                    // (B, T, C)
    const attnlab::Tensor<2> p = pos.forward(xt::xtensor<std::int32_t, 1>(xt::arange<std::int32_t>(int(T))));  // (T, C)
    h += xt::view(p, xt::newaxis(), xt::all(), xt::all());
    auto [a, weights] = attn.forward(h, h, h, {.need_weights = false});
    const attnlab::Tensor<3> r = h + a;
    const attnlab::Tensor<3> n = norm.forward(r);
    const attnlab::Tensor<2> pooled = xt::mean(n, {1});                            // (B, C)
    return head.forward(pooled);
  }
};

}  // namespace example
