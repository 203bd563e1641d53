#include "startup/startup.hpp"

#include "startup/heap_start.hpp"
#include "startup/process_env.hpp"

namespace attnlab::startup {

void prepare_process(int argc, char** argv, char** envp) {
  reexec_with_process_env(argc, argv, envp);
  align_heap_to_huge_page();
}

}  // namespace attnlab::startup
