// What the public door trades in: xt::xtensor<float, N> values, views into
// the flat parameter buffer, and the shape checks every module makes at entry.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

#include "attnlab/config.hpp"
#include "random/generator.hpp"

#ifndef XTENSOR_USE_XSIMD
#error "attnlab was built with XTENSOR_USE_XSIMD, which changes xtensor's container types: define it (linking attnlab::attnlab does)"
#endif
static_assert(XTENSOR_DEFAULT_ALIGNMENT == ATTNLAB_XTENSOR_ALIGNMENT,
              "xtensor's alignment differs from the one attnlab was built with: compile with the same -march "
              "(linking attnlab::attnlab adds it)");

namespace attnlab {

/// A float32 tensor of rank N, row-major and contiguous: what modules take and return.
template <std::size_t N>
using Tensor = xt::xtensor<float, N>;

/// A non-owning N-dimensional view of float32 memory (a parameter inside the
/// flat buffer, or its gradient). Writing through it writes the parameter.
template <std::size_t N>
using TensorView = decltype(xt::adapt(static_cast<float*>(nullptr), std::size_t(0), xt::no_ownership(),
                                      std::array<std::size_t, N>{}));

/// PyTorch's CPU generator, bit for bit (torch.manual_seed(s) is Generator(s)).
using Generator = random::Generator;

/// "(3, 1, 100)": a shape as Python prints a tuple (one element: "(5,)").
std::string shape_string(const std::vector<std::size_t>& shape);

/// The shape of any xtensor expression as a vector.
template <class E>
std::vector<std::size_t> shape_of(const E& e) {
  return std::vector<std::size_t>(e.shape().begin(), e.shape().end());
}

/// Throws std::invalid_argument unless `given` equals `expected`, where an
/// expected entry of -1 matches any size. The message names the function, the
/// argument, the shape given and the shape expected, e.g.
/// "MultiheadAttention::forward: key has shape (4, 2, 7), expected (S, 2, 5)",
/// `letters` naming the free entries (here "S").
void check_shape(const std::string& where, const std::string& argument, const std::vector<std::size_t>& given,
                 const std::vector<long>& expected, const std::vector<std::string>& letters = {});

}  // namespace attnlab
