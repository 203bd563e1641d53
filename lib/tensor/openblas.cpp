#include "tensor/openblas.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace attnlab::tensor {

namespace {

// The value `name` must have for the load, or nullptr to leave it alone.
const char* wanted_core() {
  const bool can_run_haswell = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (!can_run_haswell) return nullptr;
  const char* asked = std::getenv("ATTNLAB_BLAS_CORETYPE");
  return asked && *asked ? asked : "Haswell";
}

void ensure_env(const char* name, const char* value) {
  if (value == nullptr) return;
  const char* now = std::getenv(name);
  if (now == nullptr || std::strcmp(now, value) != 0) ::setenv(name, value, 1);
}

template <class F>
F symbol(void* handle, const char* name, const std::string& path) {
  void* p = ::dlsym(handle, name);
  if (p == nullptr) throw std::runtime_error("OpenBLAS " + path + " has no " + name);
  return reinterpret_cast<F>(p);
}

OpenBlas load() {
  OpenBlas b;
  b.path = ATTNLAB_OPENBLAS_LIBRARY;
  // One OpenBLAS thread: a threaded product's bits depend on the machine's
  // core count, and attnlab splits products between its own threads at cuts
  // that do not (row_share.hpp).
  ensure_env("OPENBLAS_NUM_THREADS", "1");
  ensure_env("OPENBLAS_CORETYPE", wanted_core());
  void* handle = ::dlopen(b.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw std::runtime_error("cannot load OpenBLAS (" + b.path + "): " + (why ? why : "unknown reason") +
                             "; is libopenblas0-pthread installed, and is `ulimit -v` large enough to map it?");
  }
  b.sgemm = symbol<decltype(b.sgemm)>(handle, "cblas_sgemm", b.path);
  b.dgemm = symbol<decltype(b.dgemm)>(handle, "cblas_dgemm", b.path);
  b.set_num_threads = symbol<decltype(b.set_num_threads)>(handle, "openblas_set_num_threads", b.path);
  using Name = char* (*)();
  const auto name = reinterpret_cast<Name>(::dlsym(handle, "openblas_get_corename"));
  b.core = name ? name() : "unknown (not a DYNAMIC_ARCH OpenBLAS)";
  b.set_num_threads(1);  // a user's OPENBLAS_NUM_THREADS read before ours: one thread all the same
  return b;              // the handle stays open for the process's life
}

}  // namespace

const OpenBlas& openblas() {
  // Not a function-local static initialised by load(): a failed load would
  // throw out of its initialiser and be retried on every call anyway; this
  // says so, and after the first successful load a call is one atomic read.
  static std::atomic<const OpenBlas*> loaded{nullptr};
  static std::mutex m;
  if (const OpenBlas* b = loaded.load(std::memory_order_acquire)) return *b;
  std::lock_guard lock(m);
  if (loaded.load(std::memory_order_relaxed) == nullptr)
    loaded.store(new OpenBlas(load()), std::memory_order_release);  // kept for the process's life, as the library is
  return *loaded.load(std::memory_order_relaxed);
}

std::string blas_core() {
  try {
    return openblas().core;
  } catch (const std::exception& e) {
    return std::string("not loaded: ") + e.what();
  }
}

}  // namespace attnlab::tensor
