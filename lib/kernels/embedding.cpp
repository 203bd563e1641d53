#include "kernels/embedding.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

#include "random/generator.hpp"

namespace attnlab::kernels {

namespace {

void check_table(const char* where, int N, int V, int D) {
  if (N < 1 || V < 1 || D < 1)
    throw std::invalid_argument(std::string(where) + ": need N, V, D >= 1, got N=" +
                                std::to_string(N) + " V=" + std::to_string(V) +
                                " D=" + std::to_string(D));
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_id(const char* where, const std::int32_t* ids, int n, int V) {
  throw std::out_of_range(std::string(where) + ": id " + std::to_string(ids[n]) + " at position " +
                          std::to_string(n) + " is outside [0, " + std::to_string(V) + ")");
}

// Inline, with the message built out of line: called once per token, the
// check was a call of its own (0.8 % of a positions run, perf record -j1).
inline void check_id(const char* where, const std::int32_t* ids, int n, int V) {
  if (ids[n] < 0 || ids[n] >= V) [[unlikely]]
    throw_bad_id(where, ids, n, V);
}

void check_positions(const char* where, int B, int T, int D, int P) {
  if (B < 1 || T < 1 || D < 1 || P < 1 || T > P)
    throw std::invalid_argument(std::string(where) + ": need B, T, D, P >= 1 and T <= P, got B=" +
                                std::to_string(B) + " T=" + std::to_string(T) +
                                " D=" + std::to_string(D) + " P=" + std::to_string(P));
}

}  // namespace

template <class T>
void embedding_forward(T* out, const std::int32_t* ids, const T* weight, int N, int V, int D) {
  check_table("embedding_forward", N, V, D);
  for (int n = 0; n < N; ++n) {
    check_id("embedding_forward", ids, n, V);
    const T* src = weight + static_cast<std::size_t>(ids[n]) * D;  // (D)
    T* dst = out + static_cast<std::size_t>(n) * D;                // (D)
    for (int d = 0; d < D; ++d) dst[d] = src[d];
  }
}

template <class T>
void embedding_backward(T* dweight, const T* dout, const std::int32_t* ids, int N, int V, int D) {
  check_table("embedding_backward", N, V, D);
  for (int n = 0; n < N; ++n) check_id("embedding_backward", ids, n, V);
  for (int n = 0; n < N; ++n) {
    const T* src = dout + static_cast<std::size_t>(n) * D;
    T* dst = dweight + static_cast<std::size_t>(ids[n]) * D;
    for (int d = 0; d < D; ++d) dst[d] += src[d];
  }
}

template <class Real>
void position_embedding_forward(Real* x, const Real* weight, int B, int T, int D, int P) {
  check_positions("position_embedding_forward", B, T, D, P);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      Real* row = x + (static_cast<std::size_t>(b) * T + t) * D;  // (D)
      const Real* pos = weight + static_cast<std::size_t>(t) * D;  // (D)
      for (int d = 0; d < D; ++d) row[d] += pos[d];
    }
}

template <class Real>
void position_embedding_backward(Real* dweight, const Real* dout, int B, int T, int D, int P) {
  check_positions("position_embedding_backward", B, T, D, P);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      const Real* row = dout + (static_cast<std::size_t>(b) * T + t) * D;
      Real* dpos = dweight + static_cast<std::size_t>(t) * D;
      for (int d = 0; d < D; ++d) dpos[d] += row[d];
    }
}

void embedding_init(random::Generator& gen, float* weight, int V, int D) {
  if (V < 1 || D < 1)
    throw std::invalid_argument("embedding_init: need V, D >= 1, got V=" + std::to_string(V) +
                                " D=" + std::to_string(D));
  // one normal_ call over the whole table: the block-of-16 path and its tail
  // rule depend on the total count, so rows must not be drawn separately
  gen.normal(weight, static_cast<std::size_t>(V) * D, 0.0, 1.0);
}

template void embedding_forward<float>(float*, const std::int32_t*, const float*, int, int, int);
template void embedding_forward<double>(double*, const std::int32_t*, const double*, int, int,
                                        int);
template void embedding_backward<float>(float*, const float*, const std::int32_t*, int, int, int);
template void embedding_backward<double>(double*, const double*, const std::int32_t*, int, int,
                                         int);
template void position_embedding_forward<float>(float*, const float*, int, int, int, int);
template void position_embedding_forward<double>(double*, const double*, int, int, int, int);
template void position_embedding_backward<float>(float*, const float*, int, int, int, int);
template void position_embedding_backward<double>(double*, const double*, int, int, int, int);

}  // namespace attnlab::kernels
