// attnlab's own sgemm tiles (impl 0: tensor::gemm<float>, which takes the
// tiles where sgemm_tiles_take() says so) against OpenBLAS (impl 1) at the
// products the trained tables spend their time in, one thread, GFLOP/s.
// The shapes are the ones an LD_PRELOAD count of cblas_sgemm calls found in
// positions, heads, attention_map, bottleneck and rnn_vs_attention:
// M = a batch of 256 rows (32 × 8), K and N the model widths (d_model 32,
// 3·d_model 96, the LSTM's 4·64 gates), and Aᵀ·B weight gradients.
//   build/bench/sgemm_tiles_bench --benchmark_min_time=0.3
#include <benchmark/benchmark.h>

#include <vector>

#include "random/generator.hpp"
#include "tensor/gemm.hpp"
#include "tensor/sgemm_tiles.hpp"

namespace {

using namespace attnlab;

void BM_Sgemm(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const bool trans_a = state.range(0) != 0, trans_b = state.range(1) != 0;
  const int M = int(state.range(2)), N = int(state.range(3)), K = int(state.range(4));
  const auto product = state.range(5) == 0 ? &tensor::gemm<float> : &tensor::sgemm_openblas;
  std::vector<float> a(std::size_t(M) * K), b(std::size_t(K) * N), c(std::size_t(M) * N);
  random::Generator g(1);
  g.normal(a.data(), a.size());
  g.normal(b.data(), b.size());
  const int lda = trans_a ? M : K, ldb = trans_b ? K : N;
  for (auto _ : state) {
    product(trans_a, trans_b, M, N, K, 1.0f, a.data(), lda, b.data(), ldb, 1.0f, c.data(), N);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * M * N * K * state.iterations(),
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.SetLabel(state.range(5) == 0 && tensor::detail::sgemm_tiles_take(trans_a, trans_b, M, N, K, 1.0f, 1.0f)
                     ? "tiles"
                     : "openblas");
}
BENCHMARK(BM_Sgemm)
    ->ArgNames({"ta", "tb", "M", "N", "K", "impl"})
    // projections: in (x · in_proj_weightᵀ), out, feed-forward
    ->ArgsProduct({{0}, {1}, {256}, {96}, {32}, {0, 1}})
    ->ArgsProduct({{0}, {1}, {256}, {32}, {32}, {0, 1}})
    ->ArgsProduct({{0}, {1}, {256}, {256}, {32}, {0, 1}})
    // their input gradients (dy · W)
    ->ArgsProduct({{0}, {0}, {256}, {32}, {96}, {0, 1}})
    ->ArgsProduct({{0}, {0}, {256}, {32}, {32}, {0, 1}})
    ->ArgsProduct({{0}, {0}, {256}, {32}, {256}, {0, 1}})
    // weight gradients (dyᵀ · x), the last one left to OpenBLAS
    ->ArgsProduct({{1}, {0}, {96}, {32}, {256}, {0, 1}})
    ->ArgsProduct({{1}, {0}, {32}, {32}, {256}, {0, 1}})
    ->ArgsProduct({{1}, {0}, {256}, {32}, {256}, {0, 1}})
    ->ArgsProduct({{1}, {0}, {256}, {64}, {256}, {0, 1}})
    // an LSTM step (h · weight_hhᵀ, batch 32, hidden 64) and its backward
    ->ArgsProduct({{0}, {1}, {32}, {256}, {64}, {0, 1}})
    ->ArgsProduct({{0}, {0}, {32}, {64}, {256}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
