#include "training/fit.hpp"

#include <algorithm>
#include <mutex>

#include "tensor/gemm.hpp"

namespace attnlab::training {

void use_single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { tensor::set_blas_threads(1); });
}

int max_batch(const FitConfig& cfg, int n_train, int n_val) {
  return std::max(std::min(cfg.batch_size, n_train), std::min(cfg.eval_batch_size, n_val));
}

std::size_t fit_memory_bytes(const FitConfig& cfg, std::size_t n_params, int n_train, int n_val, int length) {
  const std::size_t B = max_batch(cfg, n_train, n_val);
  return 2 * n_params * sizeof(float)                                  // AdamW's m and v
         + B * (static_cast<std::size_t>(length) + 1) * sizeof(std::int32_t)  // Batch: tokens, labels
         + static_cast<std::size_t>(n_train) * sizeof(std::int64_t)     // one epoch's order (randperm)
         + B * 2 * sizeof(float)                                        // evaluation logits (B, 2)
         + static_cast<std::size_t>(cfg.epochs) * sizeof(EpochRecord);
}

}  // namespace attnlab::training
