#include "kernels/parameters.hpp"

#include <algorithm>
#include <stdexcept>

namespace attnlab::kernels {

std::size_t Parameters::add(std::string name, std::vector<int> shape) {
  if (shape.empty()) throw std::invalid_argument("parameter \"" + name + "\" has an empty shape");
  for (const auto& p : info_)
    if (p.name == name) throw std::logic_error("parameter \"" + name + "\" declared twice");
  std::size_t size = 1;
  for (int d : shape) {
    if (d <= 0) throw std::invalid_argument("parameter \"" + name + "\" has a dimension " + std::to_string(d));
    size *= static_cast<std::size_t>(d);
  }
  info_.push_back({std::move(name), std::move(shape), total_, size});
  total_ += size;
  if (allocated_) {  // appended: grow both buffers, zero-filled
    value_.resize(total_, 0.0f);
    grad_.resize(total_, 0.0f);
  }
  return info_.size() - 1;
}

void Parameters::allocate() {
  value_.assign(total_, 0.0f);
  grad_.assign(total_, 0.0f);
  allocated_ = true;
}

std::size_t Parameters::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < info_.size(); ++i)
    if (info_[i].name == name) return i;
  throw std::out_of_range("no parameter called \"" + name + "\"");
}

void Parameters::zero_grad() { std::fill(grad_.begin(), grad_.end(), 0.0f); }

}  // namespace attnlab::kernels
