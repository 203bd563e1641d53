// The replica that trains a split step's second half (training/split_step.hpp):
// a model of another's configuration and weights whose buffers hold fewer
// sequences. Each classifier's replica() is this, with its own fields.
#pragma once

#include <algorithm>

#include "kernels/parameters.hpp"
#include "random/generator.hpp"

namespace attnlab::models {

/// Model(cfg, init, max_batch, length) with `params`' values copied in (the
/// same parameter layout, as cfg is the same); gradients zero.
template <class Model, class Config>
Model make_replica(const Config& cfg, const kernels::Parameters& params, int max_batch, int length) {
  random::Generator unused(0);  // the initial draws are overwritten by the weights copied below
  Model r(cfg, unused, max_batch, length);
  std::copy(params.values().begin(), params.values().end(), r.params.values().begin());
  return r;
}

}  // namespace attnlab::models
