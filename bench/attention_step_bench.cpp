// The causal cache's cost: one streaming step at position t against
// re-running the causal forward over the whole prefix of t + 1 steps, for the
// attention layer (kernels::attention_step) and the post-norm block
// (kernels::post_norm_block_step), d_model 64, 8 heads, one stream. A step
// grows linearly in t (its scores and mixing are 2·(t+1)·C multiply-adds on
// top of the fixed 4C² projections); the prefix forward grows as
// t·C² + t²·C.
//   build/bench/attention_step_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <vector>

#include "kernels/post_norm_block.hpp"
#include "kernels/attention_cache.hpp"
#include "kernels/multihead_attention.hpp"
#include "random/generator.hpp"
#include "tensor/gemm.hpp"

#include "mha_layer.hpp"

namespace {

using namespace attnlab;

constexpr int C = 64, H = 8, F = 256, L = 4096;

using Layer = MhaLayer<C>;

// one step at position t: the cache holds t keys and values; the step writes row t
void BM_LayerStep(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const int t = int(state.range(0));
  const Layer layer;
  const kernels::KvCacheDims kd{.B = 1, .C = C, .H = H, .L = L};
  std::vector<float> keys(kernels::kv_cache_size(kd)), values(kernels::kv_cache_size(kd)),
      scratch(kernels::attention_step_scratch_size(kd)), x(C), y(C);
  random::Generator g(1);
  g.normal(keys.data(), keys.size());
  g.normal(values.data(), values.size());
  g.normal(x.data(), x.size());
  for (auto _ : state) {
    kernels::attention_step(y.data(), scratch.data(), keys.data(), values.data(), t, x.data(), layer.params(), kd);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["t"] = t;
  state.SetComplexityN(t + 1);
}

// the alternative without a cache: the causal forward over all t + 1 steps, for the last row
void BM_LayerPrefixForward(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const int T = int(state.range(0)) + 1;
  const Layer layer;
  const kernels::MhaDims d = kernels::mha_dims(1, T, T, C, H);
  std::vector<float> x(std::size_t(T) * C), y(x.size()), cache(kernels::mha_cache_size(d));
  random::Generator g(1);
  g.normal(x.data(), x.size());
  kernels::MhaMasks<float> masks;
  masks.causal = true;
  for (auto _ : state) {
    kernels::mha_forward<float>(y.data(), nullptr, kernels::MhaWeights::none, cache.data(), x.data(), x.data(), x.data(), masks,
                           {}, layer.params(), d);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["t"] = T - 1;
  state.SetComplexityN(T);
}

void BM_PostNormBlockStep(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const int t = int(state.range(0));
  const auto specs = kernels::post_norm_block_param_specs(C, F);
  std::vector<std::vector<float>> w;
  for (const auto& s : specs) {
    std::size_t n = 1;
    for (int v : s.shape) n *= std::size_t(v);
    w.emplace_back(n);
  }
  random::Generator g(0);
  const kernels::PostNormTensors<float> p{w[0].data(), w[1].data(), w[2].data(), w[3].data(),
                                         w[4].data(), w[5].data(), w[6].data(), w[7].data(),
                                         w[8].data(), w[9].data(), w[10].data(), w[11].data()};
  kernels::post_norm_block_init(g, p, C, F);
  const kernels::KvCacheDims kd{.B = 1, .C = C, .H = H, .L = L};
  std::vector<float> keys(kernels::kv_cache_size(kd)), values(kernels::kv_cache_size(kd)),
      scratch(kernels::post_norm_step_scratch_size(1, C, H, F, L)), x(C), y(C);
  g.normal(keys.data(), keys.size());
  g.normal(values.data(), values.size());
  g.normal(x.data(), x.size());
  const kernels::BlockDims d{1, 1, C, H, F, 0.0, true};
  for (auto _ : state) {
    kernels::post_norm_block_step(y.data(), scratch.data(), keys.data(), values.data(), t, L, x.data(), p, d);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["t"] = t;
  state.SetComplexityN(t + 1);
}

}  // namespace

// Complexity(): Google Benchmark fits time = coefficient · f(n) over the
// arguments (n = keys attended, t + 1) and prints the fit's RMS error, so the
// growth is read off the run, not claimed.
BENCHMARK(BM_LayerStep)->RangeMultiplier(4)->Range(16, 1024)->Arg(4095)->Complexity(benchmark::oN);
BENCHMARK(BM_LayerPrefixForward)->RangeMultiplier(4)->Range(16, 1024)->Complexity(benchmark::oNSquared);
BENCHMARK(BM_PostNormBlockStep)->RangeMultiplier(4)->Range(16, 1024)->Arg(4095)->Complexity(benchmark::oN);

BENCHMARK_MAIN();
