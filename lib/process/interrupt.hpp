// Ctrl-C and SIGTERM as a request, not a death: a sweep stops starting runs,
// stops the ones running, and leaves every result.json whole or absent.
#pragma once

#include <sys/types.h>

namespace attnlab::process {

/// Installs handlers for SIGTERM, and for SIGINT unless it was ignored when
/// the program started (a shell's background job ignores it, and so do we).
/// Interrupted system calls return EINTR rather than restarting.
void catch_interrupts();

/// The signal caught (SIGINT or SIGTERM), or 0.
int interrupted();

/// From now on the handler also sends SIGTERM to `pid` (0: to nobody), so a
/// run's wrapper passes the request on to the run it started.
void forward_interrupts_to(pid_t pid);

}  // namespace attnlab::process
