// A training step allocates nothing: every buffer is sized when the model is
// built. Counted by replacing the global operator new for this test program
// and, through the linker's --wrap (tests/CMakeLists.txt), every malloc and
// posix_memalign our own code calls directly (xsimd's aligned buffers).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "data/loader_order.hpp"
#include "data/sequences.hpp"
#include "models/attention_classifier.hpp"
#include "models/recurrent_classifier.hpp"
#include "models/transformer_classifier.hpp"
#include "optim/adamw.hpp"
#include "optim/clip_grad_norm.hpp"
#include "training/batch.hpp"
#include "training/spare_cores.hpp"
#include "training/split_step.hpp"

namespace {
std::atomic<long> g_allocations{0};
}

extern "C" {
void* __real_malloc(std::size_t n);
int __real_posix_memalign(void** p, std::size_t alignment, std::size_t n);
void* __wrap_malloc(std::size_t n) {
  ++g_allocations;
  return __real_malloc(n);
}
int __wrap_posix_memalign(void** p, std::size_t alignment, std::size_t n) {
  ++g_allocations;
  return __real_posix_memalign(p, alignment, n);
}
}

void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = __real_malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// The nothrow form too, so that under ASan every block our delete frees came
// from a malloc (a sanitizer's own nothrow new would not).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++g_allocations;
  return __real_malloc(n ? n : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace attnlab::testing {
namespace {

// Runs `steps` full steps (gather, zero_grad, train_step, clip, AdamW) after
// a warm-up step and returns how many allocations they made.
template <class Model>
long allocations_in_steps(Model& model, int steps) {
  const auto data = data::make_sequences(1000, 8, 0);
  random::Generator g(0);
  const auto order = data::shuffled_epoch_order(g, data.n);
  training::Batch batch(64, 8);
  optim::AdamW opt(model.params.count(), {.lr = 3e-3});
  auto step = [&](int s) {
    training::gather(batch, data, order.data() + 64 * s, s % 2 ? 64 : 40);  // full and partial batches
    model.params.zero_grad();
    model.train_step(batch.tokens.data(), batch.labels.data(), s % 2 ? 64 : 40, g);
    optim::clip_grad_norm(model.params.grads().data(), model.params.count(), 1.0);
    opt.step(model.params.values().data(), model.params.grads().data());
  };
  step(0);
  const long before = g_allocations.load();
  for (int s = 1; s <= steps; ++s) step(s);
  return g_allocations.load() - before;
}

// The same through fit()'s split step, on one thread or with the second half
// on the helper thread (started in the warm-up step).
template <class Model>
long allocations_in_split_steps(Model& model, int steps, int spare) {
  const auto data = data::make_sequences(1000, 8, 0);
  random::Generator g(0);
  const auto order = data::shuffled_epoch_order(g, data.n);
  training::Batch batch(64, 8);
  training::StepRunner<Model> train_step(model, true, 64);
  training::SpareCores lent(spare);
  auto step = [&](int s) {
    training::gather(batch, data, order.data() + 64 * s, s % 2 ? 64 : 40);
    model.params.zero_grad();
    train_step(batch.tokens.data(), batch.labels.data(), s % 2 ? 64 : 40, 8, g);
  };
  step(0);
  const long before = g_allocations.load();
  for (int s = 1; s <= steps; ++s) step(s);
  return g_allocations.load() - before;
}

TEST(NoAllocation, SplitStepsOnOneThreadAndOnTwo) {
  for (int spare : {0, 1}) {
    random::Generator init(0);
    models::TransformerClassifier transformer({}, init, 64, 8);
    EXPECT_EQ(allocations_in_split_steps(transformer, 5, spare), 0) << spare;
    models::RecurrentClassifier lstm({}, init, 64, 8);
    EXPECT_EQ(allocations_in_split_steps(lstm, 5, spare), 0) << spare;
  }
}

TEST(NoAllocation, PositionsModel) {
  random::Generator init(0);
  models::AttentionClassifier model({}, init, 64, 8);
  EXPECT_EQ(allocations_in_steps(model, 5), 0);
}

TEST(NoAllocation, RecurrentModels) {
  for (auto cell : {models::Cell::rnn, models::Cell::gru, models::Cell::lstm}) {
    random::Generator init(0);
    models::RecurrentClassifierConfig cfg;
    cfg.cell = cell;
    models::RecurrentClassifier model(cfg, init, 64, 8);
    EXPECT_EQ(allocations_in_steps(model, 5), 0) << static_cast<int>(cell);
  }
}

TEST(NoAllocation, TransformerWithDropout) {
  random::Generator init(0);
  models::TransformerClassifier model({}, init, 64, 8);
  EXPECT_EQ(allocations_in_steps(model, 5), 0);
}

TEST(NoAllocation, TheCounterCounts) {
  // Calls the compiler may not elide, unlike a new-expression.
  long before = g_allocations.load();
  void* p = ::operator new(16);
  ::operator delete(p);
  EXPECT_EQ(g_allocations.load() - before, 1);
  before = g_allocations.load();
  void* q = nullptr;
  ASSERT_EQ(posix_memalign(&q, 64, 256), 0);
  std::free(q);
  EXPECT_EQ(g_allocations.load() - before, 1);
}

}  // namespace
}  // namespace attnlab::testing
