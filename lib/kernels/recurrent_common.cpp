#include "kernels/recurrent_common.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "random/generator.hpp"

namespace attnlab::kernels {

namespace {

void check_gates(const char* where, int G) {
  if (G != kRnnGates && G != kGruGates && G != kLstmGates)
    throw std::invalid_argument(std::string(where) + ": gate count G must be 1, 3 or 4, got G=" +
                                std::to_string(G));
}

void check_positive(const char* where, const char* what, const char* letter, int value) {
  if (value < 1)
    throw std::invalid_argument(std::string(where) + ": " + what + " " + letter +
                                " must be >= 1, got " + letter + "=" + std::to_string(value));
}

}  // namespace

void check_recurrent_dims(const char* where, int B, int T, int I, int H) {
  check_positive(where, "hidden size", "H", H);
  check_positive(where, "input size", "I", I);
  check_positive(where, "batch size", "B", B);
  check_positive(where, "sequence length", "T", T);
}

std::size_t recurrent_param_count(int G, int I, int H) {
  check_gates("recurrent_param_count", G);
  check_positive("recurrent_param_count", "hidden size", "H", H);
  check_positive("recurrent_param_count", "input size", "I", I);
  return static_cast<std::size_t>(G) * H * (static_cast<std::size_t>(I) + H + 2);
}

void recurrent_init(random::Generator& gen, float* weight_ih, float* weight_hh, float* bias_ih,
                    float* bias_hh, int G, int I, int H) {
  check_gates("recurrent_init", G);
  check_positive("recurrent_init", "hidden size", "H", H);
  check_positive("recurrent_init", "input size", "I", I);
  // stdv = 1.0 / math.sqrt(self.hidden_size), a Python double; uniform_
  // rounds the bounds to float32 itself.
  const double k = 1.0 / std::sqrt(static_cast<double>(H));
  const std::size_t rows = static_cast<std::size_t>(G) * H;
  gen.uniform(weight_ih, rows * I, -k, k);  // (G·H, I)
  gen.uniform(weight_hh, rows * H, -k, k);  // (G·H, H)
  gen.uniform(bias_ih, rows, -k, k);        // (G·H)
  gen.uniform(bias_hh, rows, -k, k);        // (G·H)
}

}  // namespace attnlab::kernels
