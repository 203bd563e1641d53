#include "attnlab/nn/cache.hpp"

#include <stdexcept>

#include "attnlab/tensor.hpp"

namespace attnlab::nn {

Cache::Cache(const CacheOptions& o) : batch_(o.batch.value_or(1)), max_len_(o.max_len), batched_(o.batch.has_value()) {
  if (batch_ < 1 || max_len_ < 1)
    throw std::invalid_argument("init_cache: batch and max_len must be >= 1, got batch " + std::to_string(batch_) +
                                " and max_len " + std::to_string(max_len_));
}

std::size_t Cache::add_key_values(int C) {
  const std::size_t n = std::size_t(batch_) * max_len_ * C;
  kv_.push_back({C, std::vector<float>(n), std::vector<float>(n)});
  return kv_.size() - 1;
}

std::size_t Cache::add_state(std::size_t n) {
  state_.emplace_back(n, 0.0f);
  return state_.size() - 1;
}

Cache::KeyValues& Cache::next_key_values(StepCursor& cursor, int C, const std::string& who) {
  if (cursor.kv >= kv_.size() || kv_[cursor.kv].C != C)
    throw std::invalid_argument(who + ": this cache was not made by this module's init_cache (no key/value slot " +
                                std::to_string(cursor.kv) + " of width " + std::to_string(C) + ")");
  return kv_[cursor.kv++];
}

std::vector<float>& Cache::next_state(StepCursor& cursor, std::size_t n, const std::string& who) {
  if (cursor.state < state_.size() && state_[cursor.state].empty()) state_[cursor.state].assign(n, 0.0f);
  if (cursor.state >= state_.size() || state_[cursor.state].size() != n)
    throw std::invalid_argument(who + ": this cache was not made by this module's init_cache (no state slot " +
                                std::to_string(cursor.state) + " of " + std::to_string(n) + " floats)");
  return state_[cursor.state++];
}

float* Cache::scratch(std::size_t n) {
  if (scratch_.size() < n) scratch_.resize(n);
  return scratch_.data();
}

void Cache::check_room(const std::string& who) const {
  if (length_ >= max_len_)
    throw std::length_error(who + ": step " + std::to_string(length_ + 1) + " does not fit the cache's max_len " +
                            std::to_string(max_len_) + "; make the cache with a larger max_len");
}

void Cache::check_step_input(const std::string& who, const std::vector<std::size_t>& shape, int C) const {
  if (batched_)
    check_shape(who, "x_t", shape, {batch_, C});
  else
    check_shape(who, "x_t", shape, {C});
}

xt::xarray<float> Cache::held(const std::vector<float>& buffer, std::size_t layer) const {
  const std::size_t C = std::size_t(kv_[layer].C), t = std::size_t(length_), L = std::size_t(max_len_);
  std::vector<std::size_t> shape = batched_ ? std::vector<std::size_t>{std::size_t(batch_), t, C}
                                            : std::vector<std::size_t>{t, C};
  xt::xarray<float> out = xt::xarray<float>::from_shape(shape);
  for (std::size_t b = 0; b < std::size_t(batch_); ++b)
    for (std::size_t j = 0; j < t; ++j)
      for (std::size_t c = 0; c < C; ++c) out.data()[(b * t + j) * C + c] = buffer[(b * L + j) * C + c];
  return out;
}

xt::xarray<float> Cache::keys(std::size_t layer) const {
  if (layer >= kv_.size())
    throw std::out_of_range("Cache::keys: layer " + std::to_string(layer) + " of " + std::to_string(kv_.size()));
  return held(kv_[layer].keys, layer);
}

xt::xarray<float> Cache::values(std::size_t layer) const {
  if (layer >= kv_.size())
    throw std::out_of_range("Cache::values: layer " + std::to_string(layer) + " of " + std::to_string(kv_.size()));
  return held(kv_[layer].values, layer);
}

}  // namespace attnlab::nn
