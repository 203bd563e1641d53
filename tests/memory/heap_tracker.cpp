#include "heap_tracker.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

std::atomic<long long> g_now{0}, g_peak{0};

// Each live block's requested size, by address: open addressing over a
// fixed table (no allocation inside the allocator), under a spin lock.
constexpr std::size_t kSlots = std::size_t{1} << 20;
void* g_ptr[kSlots];
std::size_t g_size[kSlots];
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;
void* const kTombstone = reinterpret_cast<void*>(1);

struct Lock {
  Lock() { while (g_lock.test_and_set(std::memory_order_acquire)) {} }
  ~Lock() { g_lock.clear(std::memory_order_release); }
};

std::size_t slot_of(void* p) { return (reinterpret_cast<std::uintptr_t>(p) >> 4) * 0x9E3779B97F4A7C15ull >> 44; }

void* counted(void* p, std::size_t n) {
  if (!p) return p;
  {
    Lock lock;
    for (std::size_t i = slot_of(p), probes = 0; probes < kSlots; i = (i + 1) % kSlots, ++probes)
      if (g_ptr[i] == nullptr || g_ptr[i] == kTombstone) {
        g_ptr[i] = p;
        g_size[i] = n;
        break;
      }
  }
  const long long now = g_now += static_cast<long long>(n);
  long long peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  return p;
}

// The requested size of a block counted(), forgetting it; 0 for one that was not.
std::size_t forget(void* p) {
  if (!p) return 0;
  Lock lock;
  for (std::size_t i = slot_of(p), probes = 0; probes < kSlots && g_ptr[i] != nullptr; i = (i + 1) % kSlots, ++probes)
    if (g_ptr[i] == p) {
      g_ptr[i] = kTombstone;
      return g_size[i];
    }
  return 0;
}

void uncounted(void* p) { g_now -= static_cast<long long>(forget(p)); }

}  // namespace

extern "C" {
void* __real_malloc(std::size_t n);
void* __real_calloc(std::size_t n, std::size_t size);
void* __real_realloc(void* p, std::size_t n);
void __real_free(void* p);
int __real_posix_memalign(void** p, std::size_t alignment, std::size_t n);
void* __real_aligned_alloc(std::size_t alignment, std::size_t n);

void* __wrap_malloc(std::size_t n) { return counted(__real_malloc(n), n); }
void* __wrap_calloc(std::size_t n, std::size_t size) { return counted(__real_calloc(n, size), n * size); }
void* __wrap_realloc(void* p, std::size_t n) {
  void* q = __real_realloc(p, n);
  if (q || n == 0) {
    uncounted(p);
    counted(q, n);
  }
  return q;
}
void __wrap_free(void* p) {
  uncounted(p);
  __real_free(p);
}
int __wrap_posix_memalign(void** p, std::size_t alignment, std::size_t n) {
  const int r = __real_posix_memalign(p, alignment, n);
  if (r == 0) counted(*p, n);
  return r;
}
void* __wrap_aligned_alloc(std::size_t alignment, std::size_t n) {
  return counted(__real_aligned_alloc(alignment, n), n);
}
}

void* operator new(std::size_t n) {
  if (void* p = __real_malloc(n ? n : 1)) return counted(p, n);
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  void* p = nullptr;
  if (__real_posix_memalign(&p, std::max(sizeof(void*), static_cast<std::size_t>(a)), n ? n : 1) == 0)
    return counted(p, n);
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
// The nothrow forms too: left out, a sanitizer's own nothrow new (which
// std::stable_sort's temporary buffer uses) would pair with our delete, and
// ASan stops on the new/free mismatch.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted(__real_malloc(n ? n : 1), n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  void* p = nullptr;
  if (__real_posix_memalign(&p, std::max(sizeof(void*), static_cast<std::size_t>(a)), n ? n : 1) == 0)
    return counted(p, n);
  return nullptr;
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept {
  return operator new(n, a, t);
}
void operator delete(void* p) noexcept { __wrap_free(p); }
void operator delete[](void* p) noexcept { __wrap_free(p); }
void operator delete(void* p, std::size_t) noexcept { __wrap_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __wrap_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __wrap_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __wrap_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __wrap_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __wrap_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { __wrap_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { __wrap_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { __wrap_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { __wrap_free(p); }

namespace attnlab::testing {

long long heap_now() { return g_now.load(); }
long long heap_peak() { return g_peak.load(); }
void reset_heap_peak() { g_peak = g_now.load(); }

}  // namespace attnlab::testing
