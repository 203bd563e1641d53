#include "training/fit.hpp"

#include <mutex>

#include "tensor/gemm.hpp"

namespace attnlab::training {

void use_single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { tensor::set_blas_threads(1); });
}

}  // namespace attnlab::training
