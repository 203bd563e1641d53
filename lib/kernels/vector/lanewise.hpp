// Elementwise maths in which every element takes the same instructions,
// wherever its buffer lies and wherever the element sits in it.
//
// Why not an xtensor expression: xtensor's SIMD assignment over an adapted
// raw pointer (xt::noalias(xt::adapt(p, n)) = ...) computes the elements
// before the destination's first register-aligned address, and the tail after the
// last full register, with scalar code: std::erf / std::exp / std::tanh
// from libm instead of xsimd's polynomials. The two disagree in the last
// bits (GELU at x = -2.135: -0.0349724069 vector, -0.0349723436 scalar), so
// a result depended on the address malloc happened to return, and a trained
// table on the thread that ran its row (issue 8).
//
// map_lanes runs every full register from index 0 with unaligned loads, and
// the last n mod W elements in one zero-padded register. Lanes never mix, so
// out[i] depends on the inputs at i alone: not on the address, not on i, not
// on n. W is xsimd's default batch size for Real under the target flags
// (AVX2 with -march=x86-64-v3: 8 floats, 4 doubles).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <xsimd/xsimd.hpp>

namespace attnlab::kernels::detail {

template <class Real, class F, std::size_t... K, class... In>
inline void map_tail(Real* out, std::size_t r, F& f, std::index_sequence<K...>, const In*... in) {
  using batch = xsimd::batch<Real>;
  std::array<std::array<Real, batch::size>, sizeof...(In)> padded{};  // zeros beyond r
  ((std::copy_n(in, r, padded[K].data())), ...);
  std::array<Real, batch::size> result;
  f(batch::load_unaligned(padded[K].data())...).store_unaligned(result.data());
  std::copy_n(result.data(), r, out);
}

/// out[i] = f(in[i]...) for i < n, where f maps xsimd::batch<Real> arguments
/// to a batch<Real> lane by lane (a generic lambda of +, -, *, /, xsimd::exp,
/// xsimd::erf, xsimd::tanh, ...). out may be one of the inputs (each
/// register is loaded before it is stored); otherwise buffers must not
/// overlap. No allocation. n = 0 does nothing.
template <class Real, class F, class... In>
inline void map_lanes(Real* out, std::size_t n, F f, const In*... in) {
  static_assert(sizeof...(In) > 0 && (std::is_same_v<In, Real> && ...), "inputs are Real buffers");
  using batch = xsimd::batch<Real>;
  constexpr std::size_t W = batch::size;
  std::size_t i = 0;
  for (; i + W <= n; i += W) f(batch::load_unaligned(in + i)...).store_unaligned(out + i);
  if (i < n) map_tail(out + i, n - i, f, std::index_sequence_for<In...>{}, (in + i)...);
}

}  // namespace attnlab::kernels::detail
