// LD_PRELOAD'ed by limits_test.cpp: malloc refuses any single block above
// ATTNLAB_TEST_MALLOC_CAP bytes, as a machine out of memory would, so that a
// run fails while running although its estimate fitted the limits. (A .cc
// file, so that the tests' glob of *.cpp leaves it out of test_cli.)
#include <cerrno>
#include <cstddef>
#include <cstdlib>

extern "C" void* __libc_malloc(std::size_t n);

namespace {
std::size_t cap() {
  static const std::size_t c = [] {
    const char* s = std::getenv("ATTNLAB_TEST_MALLOC_CAP");
    return s ? static_cast<std::size_t>(std::strtoull(s, nullptr, 10)) : static_cast<std::size_t>(-1);
  }();
  return c;
}
}  // namespace

extern "C" void* malloc(std::size_t n) {
  if (n > cap()) {
    errno = ENOMEM;
    return nullptr;
  }
  return __libc_malloc(n);
}
