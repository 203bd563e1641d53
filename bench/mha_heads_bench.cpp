// The per-head part of attention training (nn/mha_heads.hpp), forward and
// backward, tiled (what mha_forward / mha_backward run) against the
// reference loops beside it, at the course's size (positions: B = 64, T = 8,
// d_model 32, 4 heads) and at timing's shape (B = 8, d_model 64, 4 heads)
// for T = 128, 512, 2048 and, tiled only, 8192 (B = 1 there: the weights
// B·H·T² are 1 GiB). GFLOP/s counts 2 × the multiply-adds of the heads alone:
// 2·B·H·T²·D forward (scores, mixing), 4·B·H·T²·D backward (dP, dv, dq, dk);
// the projections are gemm and are measured by train_step_bench.
//   build/bench/mha_heads_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <vector>

#include "kernels/attention/mha_heads.hpp"
#include "random/generator.hpp"

namespace {

using namespace attnlab;

struct Shape {
  int B, T, C, H;
};

// range(0): 0 = the course's positions layer, else T for timing's shape
Shape shape(const benchmark::State& state) {
  const int t = int(state.range(0));
  if (t == 0) return {64, 8, 32, 4};
  return {t >= 8192 ? 1 : 8, t, 64, 4};
}

struct Heads {
  kernels::MhaDims d;
  kernels::MhaCacheLayout L;
  std::vector<float> cache, dy, grads, tile;
  explicit Heads(Shape s)
      : d(kernels::mha_dims(s.B, s.T, s.T, s.C, s.H)),
        L(kernels::mha_cache_layout(d)),
        cache(kernels::mha_cache_size(d)),
        dy(std::size_t(s.B) * s.T * s.C),
        grads(L.att),
        tile(kernels::mha_backward_tile_size(d)) {
    random::Generator g(1);
    g.normal(cache.data(), L.att);  // q, k, v
    g.normal(dy.data(), dy.size());
  }
  double macs() const { return 2.0 * d.B * d.H * double(d.T) * d.T * d.D; }  // one pass of scores + mixing
};

void set_counters(benchmark::State& state, const Heads& h, double passes) {
  state.counters["T"] = h.d.T;
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * passes * h.macs() * double(state.iterations()), benchmark::Counter::kIsRate);
}

template <bool Tiled>
void BM_HeadsForward(benchmark::State& state) {
  Heads h(shape(state));
  for (auto _ : state) {
    if constexpr (Tiled)
      kernels::mha_heads_forward<float>(h.cache.data(), h.L, nullptr, kernels::MhaWeights::none, {}, {}, h.d);
    else
      kernels::mha_heads_forward_reference<float>(h.cache.data(), h.L, nullptr, kernels::MhaWeights::none, {}, {}, h.d);
    benchmark::DoNotOptimize(h.cache.data());
  }
  set_counters(state, h, 1);
}

template <bool Tiled>
void BM_HeadsBackward(benchmark::State& state) {
  Heads h(shape(state));
  kernels::mha_heads_forward<float>(h.cache.data(), h.L, nullptr, kernels::MhaWeights::none, {}, {}, h.d);
  for (auto _ : state) {
    if constexpr (Tiled)
      kernels::mha_heads_backward<float>(h.grads.data(), h.dy.data(), h.tile.data(), h.cache.data(), h.L, {}, h.d);
    else
      kernels::mha_heads_backward_reference<float>(h.grads.data(), h.dy.data(), h.tile.data(), h.cache.data(), h.L, {},
                                              h.d);
    benchmark::DoNotOptimize(h.grads.data());
  }
  set_counters(state, h, 2);
}

}  // namespace

BENCHMARK(BM_HeadsForward<true>)->Arg(0)->Arg(128)->Arg(512)->Arg(2048)->Arg(8192)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HeadsForward<false>)->Arg(0)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HeadsBackward<true>)->Arg(0)->Arg(128)->Arg(512)->Arg(2048)->Arg(8192)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HeadsBackward<false>)->Arg(0)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
