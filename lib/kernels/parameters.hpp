// All of a model's parameters in one flat buffer, with named views.
//
// One allocation for values and one, in the same layout, for gradients:
// AdamW, gradient clipping, zero_grad and parity dumps are single loops,
// and the names are PyTorch's state_dict keys so a tensor can be matched
// one to one (docs/style.md; llm.c's ParameterTensors).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attnlab::kernels {

/// One named tensor inside Parameters.
struct ParamInfo {
  std::string name;          // PyTorch's state_dict key, e.g. "attn.in_proj_weight"
  std::vector<int> shape;    // PyTorch's shape, e.g. {96, 32}
  std::size_t offset = 0;    // into Parameters::value / grad
  std::size_t size = 0;      // product of shape
};

/// Declare every tensor with add(), in PyTorch's registration order, then
/// call allocate() once; pointers stay valid afterwards. A tensor added after
/// allocate() (a module joining a model, attnlab/nn/module.hpp) is appended,
/// zero-filled, to both buffers: indices stay valid, pointers taken before
/// the add may move.
class Parameters {
 public:
  /// Declares a tensor and returns its index. Throws std::logic_error for a
  /// duplicate name, std::invalid_argument for an empty shape or a
  /// non-positive dimension.
  std::size_t add(std::string name, std::vector<int> shape);
  bool allocated() const { return allocated_; }
  /// Sizes value and grad (zero-filled).
  void allocate();

  float* value(std::size_t index) { return value_.data() + info_.at(index).offset; }
  float* grad(std::size_t index) { return grad_.data() + info_.at(index).offset; }
  const float* value(std::size_t index) const { return value_.data() + info_.at(index).offset; }
  const float* grad(std::size_t index) const { return grad_.data() + info_.at(index).offset; }

  /// The index of the tensor called `name`; throws std::out_of_range naming it.
  std::size_t index_of(const std::string& name) const;

  /// Every parameter value / gradient, flat, in declaration order.
  std::vector<float>& values() { return value_; }
  std::vector<float>& grads() { return grad_; }
  const std::vector<float>& values() const { return value_; }
  const std::vector<float>& grads() const { return grad_; }
  const std::vector<ParamInfo>& info() const { return info_; }

  /// sum(p.numel() for p in model.parameters()).
  std::size_t count() const { return total_; }
  void zero_grad();

 private:
  std::vector<ParamInfo> info_;
  std::vector<float> value_, grad_;
  std::size_t total_ = 0;
  bool allocated_ = false;
};

}  // namespace attnlab::kernels
