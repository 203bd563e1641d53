// The state a causal module carries between steps of a stream: the attention
// page's init_cache() / step(x_t, cache) (data/sources/attention_page.txt §3).
//
//   attnlab::nn::MultiheadSelfAttention m(attnlab::nn::MultiheadSelfAttentionOptions(8, 2).causal(true), gen);
//   attnlab::nn::Cache cache = m.init_cache();              // keys(), values(): shape (0, 8)
//   for (std::size_t t = 0; t < T; ++t) y[t] = m.step(x[t], cache);   // == m.forward(x) row t
//
// One Cache type serves a layer, a block and a whole Sequential: each module
// that needs memory (an attention layer its keys and values, MeanOverTime its
// running sum) takes its slots when the cache is made, in the order the
// modules run, and finds them again at every step through a StepCursor. The
// memory is allocated once, for max_len steps: a step allocates no cache.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

namespace attnlab::nn {

/// init_cache's arguments: batch = std::nullopt for one unbatched stream
/// (step takes (C) and returns (C)), or B streams (step takes (B, C)).
/// max_len is the longest stream the cache holds; a step beyond it is refused.
struct CacheOptions {
  std::optional<int> batch;
  int max_len = 512;
};

/// Which slots the next module takes during one step (modules use it; users
/// call step(x_t, cache) and never see it).
struct StepCursor {
  std::size_t kv = 0;
  std::size_t state = 0;
};

class Cache {
 public:
  /// Throws std::invalid_argument for a batch or max_len below 1.
  explicit Cache(const CacheOptions& options = {});

  /// Steps taken so far: 0 after init_cache, one more after every step.
  int length() const { return length_; }
  int max_len() const { return max_len_; }
  bool batched() const { return batched_; }
  /// B, or 1 for an unbatched cache.
  int batch() const { return batch_; }
  /// Attention layers with keys and values in this cache.
  std::size_t layers() const { return kv_.size(); }
  /// The keys and values held for attention layer `layer` (in running order):
  /// (t, C) unbatched, (B, t, C) batched, t = length(); (0, C) after init_cache.
  /// Copies. Throws std::out_of_range for a layer that does not exist.
  xt::xarray<float> keys(std::size_t layer = 0) const;
  xt::xarray<float> values(std::size_t layer = 0) const;

  // ---- for modules implementing init_cache and step ----------------------
  /// One attention layer's keys and values, each (B, max_len, C).
  struct KeyValues {
    int C = 0;
    std::vector<float> keys, values;
  };
  /// Adds a key/value slot of width C (at init_cache); returns its index.
  std::size_t add_key_values(int C);
  /// Adds a state slot of n floats, zero-filled; returns its index. n = 0
  /// sizes it at the first step (a module that learns its width from x_t).
  std::size_t add_state(std::size_t n);
  /// The next slot of each kind, advancing the cursor; throws
  /// std::invalid_argument naming `who` when the cache was not made for this
  /// module (no slot left, or another width).
  KeyValues& next_key_values(StepCursor& cursor, int C, const std::string& who);
  std::vector<float>& next_state(StepCursor& cursor, std::size_t n, const std::string& who);
  /// Scratch shared by the modules of one step, grown to n floats once.
  float* scratch(std::size_t n);
  /// Throws std::length_error naming `who`, the step and max_len when the
  /// cache is full.
  void check_room(const std::string& who) const;
  /// Throws std::invalid_argument unless x_t is (C) for an unbatched cache or
  /// (B, C) for a batched one.
  void check_step_input(const std::string& who, const std::vector<std::size_t>& shape, int C) const;
  /// Ends a step: length() + 1.
  void advance() { ++length_; }

 private:
  xt::xarray<float> held(const std::vector<float>& buffer, std::size_t layer) const;
  int batch_ = 1, max_len_ = 0, length_ = 0;
  bool batched_ = false;
  std::vector<KeyValues> kv_;
  std::vector<std::vector<float>> state_;
  std::vector<float> scratch_;
};

}  // namespace attnlab::nn
