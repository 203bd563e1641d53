#include "experiments/plain_attention.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "tensor/gemm.hpp"
#include "tensor/row_ops.hpp"

namespace attnlab::experiments {

void plain_attention(float* out, float* weights, const float* q, const float* k, const float* v, int T, int S,
                     int D, int Dv) {
  if (T < 1 || S < 1 || D < 1 || Dv < 1)
    throw std::invalid_argument(fmt::format("plain_attention: T, S, D, Dv must be >= 1, got {}, {}, {}, {}", T, S, D, Dv));
  std::vector<float> own;
  if (!weights) {
    own.resize(static_cast<std::size_t>(T) * S);
    weights = own.data();
  }
  // scores (T, S) = q (T, D) · k^T (D, S)
  tensor::gemm<float>(false, true, T, S, D, 1.0f, q, D, k, D, 0.0f, weights, S);
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(D)));
  for (std::size_t n = 0; n < static_cast<std::size_t>(T) * S; ++n) weights[n] /= scale;
  for (int i = 0; i < T; ++i) tensor::softmax_inplace(weights + static_cast<std::size_t>(i) * S, S);
  // out (T, Dv) = weights (T, S) · v (S, Dv)
  tensor::gemm<float>(false, false, T, Dv, S, 1.0f, weights, S, v, Dv, 0.0f, out, Dv);
}

}  // namespace attnlab::experiments
