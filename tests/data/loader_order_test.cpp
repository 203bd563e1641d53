// The DataLoader's sample order and its draws on the global generator
// (docs/torch_rng.md §5). Figures come from PyTorch 1.13 via
// scripts/make_rng_goldens.py (data/data/loader_order.json), which iterated a
// real DataLoader(TensorDataset(arange(n)), batch_size=64, shuffle=True).
#include <gtest/gtest.h>

#include <stdexcept>

#include "data/loader_order.hpp"
#include "random/golden_calls.hpp"

namespace attnlab::data {
namespace {

using testing::json;

/// The loader's ops for the shared replayer.
bool replay_loader_call(random::Generator& g, const json& call, const std::string& what) {
  const std::string op = call.at("op");
  if (op == "shuffled_epoch") {
    const auto n = call.at("n").get<std::int64_t>();
    const auto batch = call.at("batch_size").get<std::int64_t>();
    const auto order = shuffled_epoch_order(g, n);
    testing::expect_equal_lists(order, call.at("order").get<std::vector<std::int64_t>>(), what + " order");
    // Batches are consecutive slices; only the last may be short.
    const auto sizes = call.at("batch_sizes").get<std::vector<std::int64_t>>();
    EXPECT_EQ(static_cast<std::int64_t>(sizes.size()), (n + batch - 1) / batch) << what;
    for (std::size_t b = 0; b < sizes.size(); ++b)
      EXPECT_EQ(sizes[b], std::min(batch, n - static_cast<std::int64_t>(b) * batch)) << what;
    return true;
  }
  if (op == "sequential_epoch") {
    sequential_epoch_draw(g);
    return true;
  }
  return false;
}

TEST(LoaderOrder, MatchesPyTorchDataLoader) {
  // 8000 samples for 2 epochs after torch.manual_seed(0); 1000 samples with
  // randn(37) between the epochs; a shuffle=False loader over 100 samples.
  testing::replay_file("data/loader_order.json", 3, replay_loader_call);
}

TEST(LoaderOrder, EpochSeedsMatchPyTorch) {
  // The sampler seeds, replayed in PyTorch by drawing random_() twice per epoch.
  const auto golden = testing::load_golden("data/loader_order.json");
  const auto& c = golden.at("cases").at(0);
  const auto seeds = c.at("epoch_seeds").get<std::vector<std::uint64_t>>();
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_EQ(seeds[0], 3969543146641149120ULL);  // docs/torch_rng.md §5
  random::Generator global(0);
  for (std::uint64_t seed : seeds) {
    global.random64();                                            // _base_seed
    EXPECT_EQ(global.random64() % (std::uint64_t{1} << 63), seed);  // sampler seed
  }
}

TEST(LoaderOrder, FirstEpochAfterSeedZeroStartsAsDocumented) {
  random::Generator global(0);
  const auto order = shuffled_epoch_order(global, 8000);
  ASSERT_GE(order.size(), 5u);
  EXPECT_EQ(std::vector<std::int64_t>(order.begin(), order.begin() + 5),
            (std::vector<std::int64_t>{7226, 72, 7865, 1312, 4485}));
}

TEST(LoaderOrder, DrawCountsPerEpoch) {
  random::Generator a(9), b(9);
  shuffled_epoch_order(a, 10);  // 4 words of the global generator; randperm uses a private one
  b.random64();
  b.random64();
  EXPECT_TRUE(a == b);
  sequential_epoch_draw(a);
  b.random64();
  EXPECT_TRUE(a == b);
  EXPECT_THROW(shuffled_epoch_order(a, 0), std::invalid_argument);
}

}  // namespace
}  // namespace attnlab::data
