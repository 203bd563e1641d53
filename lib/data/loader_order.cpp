// The RNG draws of torch.utils.data.DataLoader with num_workers=0
// (docs/torch_rng.md §5): 4 words of the global generator per epoch when
// shuffling, 2 when not.
#include "data/loader_order.hpp"

#include <stdexcept>
#include <string>

namespace attnlab::data {
namespace {

/// torch.empty((), dtype=torch.int64).random_(): w64() mod 2^63.
std::uint64_t random_int64(random::Generator& g) { return g.random64() % (std::uint64_t{1} << 63); }

}  // namespace

std::vector<std::int64_t> shuffled_epoch_order(random::Generator& global, std::int64_t n) {
  // RandomSampler refuses an empty dataset when the loader is built, before any draw.
  if (n < 1) throw std::invalid_argument("shuffled_epoch_order: n must be >= 1, got " + std::to_string(n));
  sequential_epoch_draw(global);  // iter(loader): the _base_seed, drawn and unused
  // First next(): RandomSampler.__iter__ seeds a private generator, whose
  // engine sees only the low 32 bits of this seed.
  random::Generator sampler(random_int64(global));
  return sampler.randperm(n);
}

void sequential_epoch_draw(random::Generator& global) { (void)random_int64(global); }

}  // namespace attnlab::data
