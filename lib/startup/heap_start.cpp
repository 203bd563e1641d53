#include "startup/heap_start.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>

namespace attnlab::startup {

namespace {

// The kernel's huge page size in bytes, as glibc reads it for
// glibc.malloc.hugetlb (malloc/malloc-hugepages.c); 0 when unknown.
std::uintptr_t huge_page_size() {
  const int fd = open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[32];
  const ssize_t n = read(fd, text, sizeof text);
  close(fd);
  std::uintptr_t size = 0;
  for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; ++i) size = size * 10 + (text[i] - '0');
  return size;
}

}  // namespace

void align_heap_to_huge_page() {
  const std::uintptr_t page = huge_page_size();
  if (page == 0 || (page & (page - 1)) != 0) return;  // unknown, or not a power of two
  void* const now = sbrk(0);
  if (now == reinterpret_cast<void*>(-1)) return;
  const std::uintptr_t gap = (page - reinterpret_cast<std::uintptr_t>(now) % page) % page;
  if (gap != 0) static_cast<void>(sbrk(static_cast<intptr_t>(gap)));  // failed: malloc starts where it would have
}

}  // namespace attnlab::startup
