// How the threads here wait: spin a while, then sleep. Shared by the helper
// waiting for its next job and the parts waiting at a phase barrier.
#pragma once

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace attnlab::threads::detail {

/// How long a waiter spins before it sleeps: longer than the gaps it should
/// cover (between two training steps: clipping, AdamW, the next batch, tens
/// of microseconds; a phase of the flash forward, tens of microseconds to
/// milliseconds), short enough that an idle thread gives its core back at
/// once. Waking a sleeping thread on this 2-core VM took up to 1.5 ms.
inline constexpr auto kSpin = std::chrono::microseconds(300);

/// One spin of a wait loop: a pause, so the spinning core yields its
/// pipeline to the other hyperthread and saves power.
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

}  // namespace attnlab::threads::detail
