#include "kernels/positions.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::kernels {

void sinusoidal_positions_fill(float* out, int L, int C) {
  if (L < 0 || C < 1)
    throw std::invalid_argument("sinusoidal_positions: length must be >= 0 and d_model >= 1, got " +
                                std::to_string(L) + " and " + std::to_string(C));
  // rate = exp(-math.log(10000.0) * i / width) on a float32 tensor i = 0, 2, 4, ...:
  // the Python float multiplies as a float32 scalar, then the division by width
  const float neg_log = static_cast<float>(-std::log(10000.0));
  const int K = (C + 1) / 2;
  std::vector<float> rate(static_cast<std::size_t>(K));
  for (int k = 0; k < K; ++k) rate[k] = std::exp(neg_log * static_cast<float>(2 * k) / static_cast<float>(C));
  for (int p = 0; p < L; ++p) {
    float* row = out + static_cast<std::size_t>(p) * C;
    for (int k = 0; k < K; ++k) {
      const float angle = static_cast<float>(p) * rate[k];
      row[2 * k] = std::sin(angle);                       // pe[:, 0::2]
      if (2 * k + 1 < C) row[2 * k + 1] = std::cos(angle);  // pe[:, 1::2], rate[:C // 2]
    }
  }
}

void learned_positions_init(random::Generator& gen, float* weight, int L, int C) {
  if (L < 1 || C < 1)
    throw std::invalid_argument("LearnedPositions: max_len and d_model must be >= 1, got " + std::to_string(L) +
                                " and " + std::to_string(C));
  gen.normal(weight, static_cast<std::size_t>(L) * C, 0.0, kLearnedPositionsStd);
}

}  // namespace attnlab::kernels
