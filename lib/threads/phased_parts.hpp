// Parts of one computation run side by side, phase by phase: the flash
// forward's in-projection rows, then its heads, then its out-projection rows
// (nn/flash_attention.cpp). The threads are kept from call to call and meet
// at a spinning barrier, because at T = 512 a whole forward pass is a few
// milliseconds: started per call, two threads took 8.28 ms where one took
// 13.4; kept, 7.23 against 14.8 (bench/flash_attention_bench).
#pragma once

namespace attnlab::threads {

namespace detail {
struct PhaseStep {
  void (*fn)(const void*, int phase, int part) = nullptr;
  const void* arg = nullptr;
  void operator()(int phase, int part) const { fn(arg, phase, part); }
};
void run_parts_in_phases(int parts, int phases, PhaseStep step);
}  // namespace detail

/// Runs step(phase, part) once for every part in [0, parts) and every phase
/// in [0, phases), so that phase k of every part ends before phase k + 1 of
/// any part begins. The calling thread takes part 0; the others run on
/// helper threads that belong to the calling thread (started on its first
/// call, kept until it exits), so concurrent callers never share them. A
/// helper that cannot be started (no room for its stack, a process limit)
/// leaves its part to the caller, which runs it after its own: the parts,
/// not the threads, decide what is computed. `step` must not throw (the
/// callers check their inputs first); if it does, the program terminates.
/// parts >= 1, phases >= 0.
template <class F>
void run_parts_in_phases(int parts, int phases, const F& step) {
  detail::run_parts_in_phases(
      parts, phases,
      detail::PhaseStep{[](const void* f, int phase, int part) { (*static_cast<const F*>(f))(phase, part); }, &step});
}

}  // namespace attnlab::threads
