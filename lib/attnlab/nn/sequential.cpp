#include "attnlab/nn/sequential.hpp"

#include <stdexcept>

namespace attnlab::nn {

namespace detail {
void bad_rank(const std::string& who, const char* what, std::size_t rank) {
  throw std::invalid_argument(who + ": " + what + " does not take a tensor of rank " + std::to_string(rank));
}
}  // namespace detail

xt::xarray<float> Sequential::forward(const xt::xarray<float>& x) {
  inputs_.resize(children_.size());
  xt::xarray<float> h = x;
  for (std::size_t i = 0; i < children_.size(); ++i) {
    children_[i]->module().train(is_training());
    inputs_[i] = h;
    h = children_[i]->forward(inputs_[i]);
  }
  return h;
}

xt::xarray<float> Sequential::backward(const xt::xarray<float>& grad_output, const xt::xarray<float>& x) {
  if (inputs_.size() != children_.size() || children_.empty()) {
    if (children_.empty()) return grad_output;
    throw std::logic_error("Sequential::backward: no forward() to go back through");
  }
  if (!std::equal(x.shape().begin(), x.shape().end(), inputs_[0].shape().begin(), inputs_[0].shape().end()))
    throw std::invalid_argument("Sequential::backward: x has shape " + shape_string(shape_of(x)) +
                                ", the last forward's had " + shape_string(shape_of(inputs_[0])));
  xt::xarray<float> g = grad_output;
  for (std::size_t i = children_.size(); i-- > 0;) g = children_[i]->backward(g, inputs_[i]);
  return g;
}

void Sequential::add_to_cache(Cache& cache) const {
  for (const auto& c : children_) c->add_to_cache(cache);
}

Cache Sequential::init_cache(const CacheOptions& options) const {
  Cache cache(options);
  add_to_cache(cache);
  return cache;
}

xt::xarray<float> Sequential::step(const xt::xarray<float>& x_t, Cache& cache, StepCursor& cursor) {
  xt::xarray<float> h = x_t;
  for (auto& c : children_) h = c->step(h, cache, cursor);
  return h;
}

xt::xarray<float> Sequential::step(const xt::xarray<float>& x_t, Cache& cache) {
  cache.check_room("Sequential::step");
  const std::size_t rank = cache.batched() ? 2 : 1;
  if (x_t.dimension() != rank || (rank == 2 && x_t.shape()[0] != std::size_t(cache.batch())))
    throw std::invalid_argument("Sequential::step: x_t has shape " + shape_string(shape_of(x_t)) + ", expected " +
                                (rank == 2 ? "(" + std::to_string(cache.batch()) + ", C)" : std::string("(C,)")) +
                                " for this cache");
  StepCursor cursor;
  xt::xarray<float> y = step(x_t, cache, cursor);
  cache.advance();
  return y;
}

void Sequential::set_generator(Generator& gen) {
  for (auto& c : children_) c->set_generator(gen);
}

std::vector<std::size_t> Sequential::output_shape(const std::vector<std::size_t>& input_shape) const {
  std::vector<std::size_t> s = input_shape;
  for (const auto& c : children_) s = c->output_shape(s);
  return s;
}

std::size_t Sequential::forward_macs(const std::vector<std::size_t>& input_shape) const {
  std::vector<std::size_t> s = input_shape;
  std::size_t macs = 0;
  for (const auto& c : children_) {
    macs += c->forward_macs(s);
    s = c->output_shape(s);
  }
  return macs;
}

}  // namespace attnlab::nn
