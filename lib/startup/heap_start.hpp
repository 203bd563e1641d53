#pragma once

namespace attnlab::startup {

/// Moves the program break up to the next transparent-huge-page boundary
/// (the size the kernel gives in /sys/kernel/mm/transparent_hugepage/
/// hpage_pmd_size, 2 MiB on x86-64), so that glibc's main heap starts on one.
///
/// Why: with glibc.malloc.hugetlb=1 (malloc_tunables.hpp) glibc
/// advises its heap to huge pages and grows it to huge-page boundaries, but
/// the kernel backs only whole aligned 2 MiB ranges with a huge page, and the
/// break starts at a random offset after the executable. The heap's first
/// 0 to 2 MiB, where a run's first buffers go, was therefore touched 4 KiB at
/// a time: `attnlab run experiments/attention_map.json --set epochs=1` took
/// 1,070 to 1,430 minor faults (`/usr/bin/time -f %R`, 12 runs), 530 to 536
/// with the break aligned (`attnlab list`: 470 to 500); a 4 KiB first touch
/// costs about 10 us on the course's 2-core VM.
///
/// Costs address space only (sbrk reserves, nothing is touched) and never
/// fails: without the sysfs file (no transparent huge pages), or when sbrk
/// cannot move the break (a tight `ulimit -v`), it leaves the break where it
/// was. Must run before malloc's first call: startup/preinit.cpp
/// calls it (startup.hpp), after any re-exec. It
/// allocates nothing and needs no constructor.
void align_heap_to_huge_page();

}  // namespace attnlab::startup
