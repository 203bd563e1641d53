// The mean over the time axis, h.mean(dim=-2): a sequence (B, T, C) becomes
// one vector per sequence (B, C); (T, C) becomes (C). The attention page's
// MeanOverTime (data/sources/attention_page.txt §6), the pooling of the course's classifiers. The
// maths is lib/kernels/mean_over_time.hpp.
#pragma once

#include "attnlab/nn/cache.hpp"
#include "attnlab/nn/module.hpp"

namespace attnlab::nn {

class MeanOverTime : public Module {
 public:
  explicit MeanOverTime(const Scope& scope = {}) : Module(scope) {}
  MeanOverTime(Generator&, const Scope& scope) : MeanOverTime(scope) {}  // for Sequential

  /// (B, T, C) -> (B, C); (T, C) -> (C). Throws std::invalid_argument for T = 0.
  Tensor<2> forward(const Tensor<3>& x) const;
  Tensor<1> forward(const Tensor<2>& x) const;
  /// d(loss)/dx[:, t] = d(loss)/dy / T for every t.
  Tensor<3> backward(const Tensor<2>& grad_output, const Tensor<3>& x) const;
  Tensor<2> backward(const Tensor<1>& grad_output, const Tensor<2>& x) const;

  /// Streaming: the running mean of the steps so far, so step t returns
  /// forward() of the first t + 1 steps. The cache holds the running sum (B·C,
  /// sized at the first step).
  void add_to_cache(Cache& cache) const;
  void step_rows(float* out, const float* x, int C, Cache& cache, StepCursor& cursor) const;
};

}  // namespace attnlab::nn
