// The executable's .preinit_array entry (startup.hpp tells the story). It is
// compiled into the attnlab executable itself, not into a library: a static
// library's object would only be linked if something referred to it.
#include "startup/startup.hpp"

namespace attnlab::startup {

namespace {

[[gnu::used, gnu::section(".preinit_array")]] void (*const prepare_first)(int, char**, char**) = &prepare_process;

}  // namespace

}  // namespace attnlab::startup
