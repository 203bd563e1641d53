// One training step (forward, backward, clipping, AdamW) of each course
// model on a batch of 64 x 8, and the single-threaded sgemm peak at the
// models' largest product, for GFLOP/s comparisons.
//   build/bench/train_step_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include "data/loader_order.hpp"
#include "data/sequences.hpp"
#include "models/attention_classifier.hpp"
#include "models/recurrent_classifier.hpp"
#include "models/transformer_classifier.hpp"
#include "optim/adamw.hpp"
#include "optim/clip_grad_norm.hpp"
#include "tensor/gemm.hpp"
#include "training/batch.hpp"

namespace {

using namespace attnlab;

template <class Model>
void step_loop(benchmark::State& state, Model& model) {
  tensor::set_blas_threads(1);
  const auto data = data::make_sequences(8000, 8, 0);
  random::Generator g(0);
  const auto order = data::shuffled_epoch_order(g, data.n);
  training::Batch batch(64, 8);
  optim::AdamW opt(model.params.count(), {.lr = 3e-3});
  int first = 0;
  for (auto _ : state) {
    training::gather(batch, data, order.data() + first, 64);
    first = (first + 64) % (data.n - 64);
    model.params.zero_grad();
    benchmark::DoNotOptimize(model.train_step(batch.tokens.data(), batch.labels.data(), 64, g));
    optim::clip_grad_norm(model.params.grads().data(), model.params.count(), 1.0);
    opt.step(model.params.values().data(), model.params.grads().data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_PositionsModelStep(benchmark::State& state) {
  random::Generator init(0);
  models::AttentionClassifier model({}, init, 512, 8);
  step_loop(state, model);
}
BENCHMARK(BM_PositionsModelStep)->Unit(benchmark::kMicrosecond);

void BM_RecurrentStep(benchmark::State& state) {
  random::Generator init(0);
  models::RecurrentClassifierConfig cfg;
  cfg.cell = static_cast<models::Cell>(state.range(0));
  cfg.hidden_size = static_cast<int>(state.range(1));
  models::RecurrentClassifier model(cfg, init, 512, 8);
  step_loop(state, model);
}
BENCHMARK(BM_RecurrentStep)
    ->ArgNames({"cell", "hidden"})
    ->Args({0, 64})
    ->Args({1, 64})
    ->Args({2, 2})
    ->Args({2, 64})
    ->Unit(benchmark::kMicrosecond);

void BM_TransformerStep(benchmark::State& state) {
  random::Generator init(0);
  models::TransformerClassifierConfig cfg;
  cfg.n_blocks = static_cast<int>(state.range(0));
  models::TransformerClassifier model(cfg, init, 512, 8);
  step_loop(state, model);
}
BENCHMARK(BM_TransformerStep)->ArgName("blocks")->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

// The peak a training step could reach: the best sgemm rate on one core, at
// the feed-forward's shape and a large cube, on attnlab's own tiles
// (impl 0, what gemm<float>() runs at these shapes) and on OpenBLAS (impl 1,
// the faster of the two on the cube). scripts/bench_vs_pytorch.py takes the
// best of all four, so the tiles beating OpenBLAS raises the bar, not lowers it.
void BM_SgemmPeak(benchmark::State& state) {
  tensor::set_blas_threads(1);
  const int M = static_cast<int>(state.range(0)), N = static_cast<int>(state.range(1)),
            K = static_cast<int>(state.range(2));
  const auto product = state.range(3) == 0 ? &tensor::gemm<float> : &tensor::sgemm_openblas;
  std::vector<float> a(static_cast<std::size_t>(M) * K, 0.5f), b(static_cast<std::size_t>(K) * N, 0.25f),
      c(static_cast<std::size_t>(M) * N);
  for (auto _ : state) {
    product(false, true, M, N, K, 1.0f, a.data(), K, b.data(), K, 0.0f, c.data(), N);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * M * N * K * state.iterations(), benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_SgemmPeak)
    ->ArgNames({"M", "N", "K", "impl"})
    ->ArgsProduct({{512}, {128}, {32}, {0, 1}})
    ->ArgsProduct({{512}, {512}, {512}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
