// Mini-batches gathered from a Sequences dataset into fixed buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "data/sequences.hpp"

namespace attnlab::training {

/// Buffers for up to `capacity` sequences, allocated once so that a
/// training step allocates nothing.
struct Batch {
  Batch(int capacity, int length);
  int capacity, length;
  std::vector<std::int32_t> tokens;  // (capacity, length)
  std::vector<std::int32_t> labels;  // (capacity)
};

/// Copies the samples order[0..b) into `batch`; returns b.
int gather(Batch& batch, const data::Sequences& d, const std::int64_t* order, int b);

/// Copies samples first..first+b-1 (an unshuffled loader); returns b.
int gather_range(Batch& batch, const data::Sequences& d, int first, int b);

/// How many rows of logits (b, 2) have their argmax equal to the label;
/// ties go to class 0, as torch.argmax returns the first maximum.
long count_correct(const float* logits, const std::int32_t* labels, int b);

}  // namespace attnlab::training
