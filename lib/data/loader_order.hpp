// The order in which torch.utils.data.DataLoader visits a dataset.
#pragma once

#include <cstdint>
#include <vector>

#include "random/generator.hpp"

namespace attnlab::data {

/// One epoch of DataLoader(dataset, shuffle=True, num_workers=0) over n
/// samples (docs/torch_rng.md §5): draws w64() for the iterator's unused
/// _base_seed and w64() mod 2^63 for the sampler's seed from `global`, then
/// returns randperm(n) on a private generator seeded with it. Batches are
/// consecutive slices of this order. Throws std::invalid_argument for n < 1
/// (RandomSampler refuses an empty dataset).
std::vector<std::int64_t> shuffled_epoch_order(random::Generator& global, std::int64_t n);

/// One epoch of a loader with shuffle=False: only the _base_seed draw,
/// which still advances `global` (§5).
void sequential_epoch_draw(random::Generator& global);

}  // namespace attnlab::data
