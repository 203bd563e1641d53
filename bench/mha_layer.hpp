// One nn.MultiheadAttention layer of width C with PyTorch's initialisation
// from generator 0, as the attention benchmarks time it.
#pragma once

#include <vector>

#include "kernels/multihead_attention.hpp"
#include "random/generator.hpp"

template <int C>
struct MhaLayer {
  std::vector<float> in_w = std::vector<float>(3 * C * C), in_b = std::vector<float>(3 * C),
                     out_w = std::vector<float>(C * C), out_b = std::vector<float>(C);
  MhaLayer() {
    attnlab::random::Generator g(0);
    attnlab::kernels::multihead_attention_init(g, in_w.data(), in_b.data(), out_w.data(), out_b.data(), C);
  }
  attnlab::kernels::MhaParams<float> params() const {
    return attnlab::kernels::mha_packed(in_w.data(), in_b.data(), out_w.data(), out_b.data(), C);
  }
};
