// Chainable option setters, as libtorch's TORCH_ARG: for every option `x`,
// `x(value)` sets it and returns the options, `x()` reads it, so
// MultiheadAttentionOptions(32, 4).kdim(16).dropout(0.1) reads like Python's
// nn.MultiheadAttention(32, 4, kdim=16, dropout=0.1).
#pragma once

#define ATTNLAB_ARG(T, name)                 \
 public:                                     \
  auto& name(const T& new_value) {           \
    this->name##_ = new_value;               \
    return *this;                            \
  }                                          \
  const T& name() const { return name##_; } \
                                             \
 private:                                    \
  T name##_
