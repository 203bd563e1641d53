// What every module of the public door shares: its parameters live in one
// flat nn::ParameterStore buffer (its own, or a model's shared with the other
// modules), named as PyTorch's state_dict names them, with train/eval mode.
//
//   auto store = std::make_shared<attnlab::nn::ParameterStore>();   // one buffer for a model
//   attnlab::nn::Embedding tok(attnlab::nn::EmbeddingOptions(10, 32), gen, {store, "tok"});
//   attnlab::nn::MultiheadAttention attn(attnlab::nn::MultiheadAttentionOptions(32, 4), gen, {store, "attn"});
//   // store->info(): tok.weight, attn.in_proj_weight, ..., in construction order
//
// A module built without a Scope owns a buffer of its own. Parameters are
// registered and initialised in the constructor, in PyTorch's order, so a
// model built module by module after Generator(seed) holds the weights
// PyTorch's model holds after torch.manual_seed(seed).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attnlab/tensor.hpp"
#include "kernels/parameters.hpp"

namespace attnlab::nn {

/// The flat buffer of a model's parameters and their gradients, with named
/// views (kernels/parameters.hpp): what a Scope shares between modules and what
/// AdamW, clipping and state_dict loops walk in one pass.
using ParameterStore = kernels::Parameters;

/// Where a module puts its parameters: a shared buffer and the module's name
/// in the model (the state_dict prefix, "attn" for attn.in_proj_weight).
/// An empty store means a buffer of the module's own, without a prefix.
struct Scope {
  std::shared_ptr<ParameterStore> store;
  std::string prefix;
};

/// One parameter as state_dict() lists it: the key, PyTorch's shape, and
/// views of its value and gradient inside the flat buffers.
struct NamedParameter {
  std::string name;
  std::vector<std::size_t> shape;
  float* value;
  float* grad;
};

class Module {
 public:
  virtual ~Module() = default;

  /// This module's parameters in registration order (PyTorch's
  /// module.state_dict() order), keys relative to the module
  /// ("in_proj_weight", "out_proj.weight"). Pointers stay valid until a
  /// parameter is added to the same store.
  std::vector<NamedParameter> named_parameters() const;
  /// The flat buffer holding them (and, in a model, every other module's).
  ParameterStore& store() const { return *store_; }
  const std::shared_ptr<ParameterStore>& shared_store() const { return store_; }
  /// The state_dict prefix given in the Scope ("" when standalone).
  const std::string& prefix() const { return prefix_; }

  /// PyTorch's module.train() / module.eval(): dropout is active in training
  /// only. A module starts in training mode, as PyTorch's do.
  void train(bool on = true) { training_ = on; }
  void eval() { training_ = false; }
  bool is_training() const { return training_; }

  /// Sets this module's gradients to zero (module.zero_grad()).
  void zero_grad();

 protected:
  explicit Module(const Scope& scope);
  /// Declares a parameter ("weight", {out, in}) and returns its index in the store.
  std::size_t register_parameter(const std::string& name, std::vector<int> shape);
  /// Lists a submodule's parameters as this module's too (a container such as
  /// Sequential, whose children share its store under its prefix).
  void adopt(const Module& child);
  float* value(std::size_t index) const { return store_->value(index); }
  float* grad(std::size_t index) const { return store_->grad(index); }
  template <std::size_t N>
  TensorView<N> view(float* data, const std::array<std::size_t, N>& shape) const {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return xt::adapt(static_cast<float*>(data), n, xt::no_ownership(), shape);  // a prvalue: the view holds the pointer, not a reference to it
  }

 private:
  std::shared_ptr<ParameterStore> store_;
  std::string prefix_;
  std::vector<std::size_t> own_;  // indices of this module's parameters in the store
  bool training_ = true;
};

}  // namespace attnlab::nn
