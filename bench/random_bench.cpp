// The generator's MT19937 and the dropout mask it draws, before and after the
// block engine (random/mt19937.hpp): the "before" cases run the code the
// generator ran until then (std::mt19937, one call per word; the mask as a
// 53-bit double per element), the "after" cases the generator itself. Both
// give the same words and masks (tests/random/mt19937_test.cpp).
//   build/bench/random_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "random/generator.hpp"
#include "random/mt19937.hpp"

namespace {

using namespace attnlab;

// one regeneration of the 624-word block
void BM_TwistScalar(benchmark::State& state) {
  std::vector<std::uint32_t> x(random::Mt19937::kN, 12345u);
  for (auto _ : state) {
    random::mt19937_twist_scalar(x.data());
    benchmark::DoNotOptimize(x.data());
  }
  state.SetItemsProcessed(state.iterations() * random::Mt19937::kN);
}

void BM_TwistVectorised(benchmark::State& state) {
  std::vector<std::uint32_t> x(random::Mt19937::kN, 12345u);
  for (auto _ : state) {
    random::mt19937_twist(x.data());
    benchmark::DoNotOptimize(x.data());
  }
  state.SetItemsProcessed(state.iterations() * random::Mt19937::kN);
}

// 2^16 tempered words
constexpr int kWords = 1 << 16;

void BM_WordsStdMt19937(benchmark::State& state) {
  std::mt19937 e(0);
  std::vector<std::uint32_t> out(kWords);
  for (auto _ : state) {
    for (auto& w : out) w = std::uint32_t(e());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kWords);
}

void BM_WordsFill(benchmark::State& state) {
  random::Mt19937 e(0);
  std::vector<std::uint32_t> out(kWords);
  for (auto _ : state) {
    e.fill(out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kWords);
}

// a dropout mask of n elements at p = 0.1 (two words each); n = 8·32·64 is a
// transformer block's (B·T, C) at the course's sizes, 2^20 a large one
void BM_DropoutMaskBefore(benchmark::State& state) {
  const auto n = std::size_t(state.range(0));
  std::mt19937 e(0);
  std::vector<std::uint8_t> keep(n);
  const double keep_probability = 1.0 - 0.1;
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t hi = e(), lo = e();
      const double u = double(((hi << 32) | lo) & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53;
      keep[i] = u < keep_probability ? 1 : 0;
    }
    benchmark::DoNotOptimize(keep.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(n));
}

void BM_DropoutMask(benchmark::State& state) {
  const auto n = std::size_t(state.range(0));
  random::Generator g(0);
  std::vector<std::uint8_t> keep(n);
  for (auto _ : state) {
    g.dropout_mask(keep.data(), n, 0.1);
    benchmark::DoNotOptimize(keep.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(n));
}

}  // namespace

BENCHMARK(BM_TwistScalar);
BENCHMARK(BM_TwistVectorised);
BENCHMARK(BM_WordsStdMt19937);
BENCHMARK(BM_WordsFill);
BENCHMARK(BM_DropoutMaskBefore)->Arg(8 * 32 * 64)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DropoutMask)->Arg(8 * 32 * 64)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
