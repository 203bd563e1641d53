#include "training/batch.hpp"

#include <algorithm>
#include <stdexcept>

namespace attnlab::training {

Batch::Batch(int capacity_, int length_)
    : capacity(capacity_),
      length(length_),
      tokens(static_cast<std::size_t>(capacity_) * length_),
      labels(capacity_) {}

int gather(Batch& batch, const data::Sequences& d, const std::int64_t* order, int b) {
  if (b > batch.capacity || d.length != batch.length) throw std::logic_error("batch does not fit its buffer");
  for (int i = 0; i < b; ++i) {
    const auto src = d.tokens.begin() + order[i] * d.length;
    std::copy(src, src + d.length, batch.tokens.begin() + static_cast<std::ptrdiff_t>(i) * d.length);
    batch.labels[i] = d.labels[order[i]];
  }
  return b;
}

int gather_range(Batch& batch, const data::Sequences& d, int first, int b) {
  if (b > batch.capacity || d.length != batch.length) throw std::logic_error("batch does not fit its buffer");
  const auto src = d.tokens.begin() + static_cast<std::ptrdiff_t>(first) * d.length;
  std::copy(src, src + static_cast<std::ptrdiff_t>(b) * d.length, batch.tokens.begin());
  std::copy(d.labels.begin() + first, d.labels.begin() + first + b, batch.labels.begin());
  return b;
}

long count_correct(const float* logits, const std::int32_t* labels, int b) {
  long right = 0;
  for (int i = 0; i < b; ++i) {
    const int predicted = logits[2 * i + 1] > logits[2 * i] ? 1 : 0;
    right += predicted == labels[i];
  }
  return right;
}

}  // namespace attnlab::training
