#include "attnlab/nn/module.hpp"

#include <algorithm>
#include <stdexcept>

namespace attnlab::nn {

Module::Module(const Scope& scope)
    : store_(scope.store ? scope.store : std::make_shared<kernels::Parameters>()), prefix_(scope.prefix) {
  if (!store_->allocated()) store_->allocate();
}

std::size_t Module::register_parameter(const std::string& name, std::vector<int> shape) {
  const std::size_t index = store_->add(prefix_.empty() ? name : prefix_ + "." + name, std::move(shape));
  own_.push_back(index);
  return index;
}

std::vector<NamedParameter> Module::named_parameters() const {
  std::vector<NamedParameter> out;
  const std::size_t skip = prefix_.empty() ? 0 : prefix_.size() + 1;
  for (std::size_t index : own_) {
    const kernels::ParamInfo& info = store_->info()[index];
    out.push_back({info.name.substr(skip), std::vector<std::size_t>(info.shape.begin(), info.shape.end()),
                   store_->value(index), store_->grad(index)});
  }
  return out;
}

void Module::adopt(const Module& child) {
  if (child.store_ != store_) throw std::logic_error("Module::adopt: the child's parameters live in another store");
  own_.insert(own_.end(), child.own_.begin(), child.own_.end());
}

void Module::zero_grad() {
  for (std::size_t index : own_) std::fill_n(store_->grad(index), store_->info()[index].size, 0.0f);
}

}  // namespace attnlab::nn
