// The attention forward of `timing` (B = 8, d_model 64, 4 heads, self-attention,
// need_weights=False) by sequence length, two ways: the flash path
// (kernels::mha_flash_forward: tiles, an online softmax, O(T·C) memory) and the
// weighted path (kernels::mha_forward, which writes all B·H·T² softmax weights:
// 537 MB at T = 2048, 8.6 GB at 8192, so it stops at 2048).
// GFLOP/s counts 2 × the multiply-adds: 4·B·T·C² for the projections and
// 2·B·H·T²·D for scores and mixing; the FLOP floor of a pass is that count
// over train_step_bench's SgemmPeak (scripts/bench_vs_pytorch.py prints both).
// The two-thread case reports wall time (UseRealTime): CPU time counts only
// the calling thread.
//   build/bench/flash_attention_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <vector>

#include "kernels/flash_attention.hpp"
#include "kernels/multihead_attention.hpp"
#include "random/generator.hpp"
#include "tensor/gemm.hpp"

#include "mha_layer.hpp"

namespace {

using namespace attnlab;

constexpr int B = 8, C = 64, H = 4;

using Layer = MhaLayer<C>;

double flops(int T) { return 2.0 * (4.0 * B * T * C * C + 2.0 * B * H * double(T) * T * (C / H)); }

void set_counters(benchmark::State& state, int T) {
  state.counters["T"] = T;
  state.counters["GFLOP/s"] = benchmark::Counter(flops(T) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// range(1), range(2): tile sizes (query rows, key rows); absent = the defaults
void BM_FlashForward(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const int T = int(state.range(0));
  kernels::FlashBlocks blocks;
  if (state.range(1) > 0) blocks = {int(state.range(1)), int(state.range(2))};
  const Layer layer;
  const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, H);
  std::vector<float> x(std::size_t(B) * T * C), out(x.size()), work(kernels::mha_flash_workspace_size(d, blocks));
  random::Generator g(1);
  g.normal(x.data(), x.size());
  for (auto _ : state) {
    kernels::mha_flash_forward<float>(out.data(), work.data(), x.data(), x.data(), x.data(), {}, layer.params(), d,
                                 blocks);
    benchmark::DoNotOptimize(out.data());
  }
  set_counters(state, T);
  state.counters["block_q"] = blocks.q;
  state.counters["block_k"] = blocks.k;
}

// on two threads, as `timing` runs with --jobs 2: heads and projection rows split
void BM_FlashForwardTwoThreads(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const int T = int(state.range(0));
  const Layer layer;
  const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, H);
  std::vector<float> x(std::size_t(B) * T * C), out(x.size()), work(kernels::mha_flash_workspace_size(d, {}, 2));
  random::Generator g(1);
  g.normal(x.data(), x.size());
  for (auto _ : state) {
    kernels::mha_flash_forward<float>(out.data(), work.data(), x.data(), x.data(), x.data(), {}, layer.params(), d, {}, 2);
    benchmark::DoNotOptimize(out.data());
  }
  set_counters(state, T);
}

void BM_WeightedForward(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const int T = int(state.range(0));
  const Layer layer;
  const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, H);
  std::vector<float> x(std::size_t(B) * T * C), out(x.size()), cache(kernels::mha_cache_size(d));
  random::Generator g(1);
  g.normal(x.data(), x.size());
  for (auto _ : state) {
    kernels::mha_forward<float>(out.data(), nullptr, kernels::MhaWeights::none, cache.data(), x.data(), x.data(), x.data(), {},
                           {}, layer.params(), d);
    benchmark::DoNotOptimize(out.data());
  }
  set_counters(state, T);
}

// the causal case: whole key tiles after a query tile are skipped, about half the work
void BM_FlashForwardCausal(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const int T = int(state.range(0));
  const Layer layer;
  const kernels::MhaDims d = kernels::mha_dims(B, T, T, C, H);
  std::vector<float> x(std::size_t(B) * T * C), out(x.size()), work(kernels::mha_flash_workspace_size(d));
  random::Generator g(1);
  g.normal(x.data(), x.size());
  kernels::MhaMasks<float> masks;
  masks.causal = true;
  for (auto _ : state) {
    kernels::mha_flash_forward<float>(out.data(), work.data(), x.data(), x.data(), x.data(), masks, layer.params(), d);
    benchmark::DoNotOptimize(out.data());
  }
  set_counters(state, T);
}

}  // namespace

BENCHMARK(BM_FlashForward)
    ->Args({128, 0, 0})->Args({512, 0, 0})->Args({2048, 0, 0})->Args({8192, 0, 0})
    ->Unit(benchmark::kMillisecond);
// the tile sizes at T = 512 (bench --benchmark_filter=FlashTiles)
BENCHMARK(BM_FlashForward)
    ->Name("BM_FlashTiles")
    ->ArgsProduct({{512}, {16, 32, 64, 128, 256}, {128, 256, 512}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FlashForwardTwoThreads)->Arg(512)->Arg(8192)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WeightedForward)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FlashForwardCausal)->Arg(512)->Arg(8192)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
