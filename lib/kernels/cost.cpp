#include "kernels/cost.hpp"

namespace attnlab::kernels {

std::size_t linear_forward_macs(std::size_t N, std::size_t C, std::size_t OC) { return N * C * OC; }

std::size_t mha_forward_macs(std::size_t B, std::size_t T, std::size_t S, std::size_t C) {
  const std::size_t projections = B * T * C * C + 2 * B * S * C * C + B * T * C * C;
  const std::size_t scores = B * T * S * C, mixing = B * T * S * C;
  return projections + scores + mixing;
}

std::size_t recurrent_forward_macs(std::size_t B, std::size_t T, std::size_t G, std::size_t I, std::size_t H) {
  return B * T * G * H * (I + H);
}

}  // namespace attnlab::kernels
