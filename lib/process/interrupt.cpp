#include "process/interrupt.hpp"

#include <signal.h>

#include <csignal>

namespace attnlab::process {

namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_forward = 0;  // a pid fits in sig_atomic_t (int) on Linux

void on_signal(int sig) {
  if (!g_signal) g_signal = sig;
  if (g_forward > 0) ::kill(static_cast<pid_t>(g_forward), SIGTERM);  // kill() is async-signal-safe
}

void install(int sig, bool unless_ignored) {
  struct sigaction old{};
  sigaction(sig, nullptr, &old);
  if (unless_ignored && old.sa_handler == SIG_IGN) return;
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked poll() or read() returns EINTR
  sigaction(sig, &sa, nullptr);
}

}  // namespace

void catch_interrupts() {
  install(SIGINT, true);
  install(SIGTERM, false);
}

int interrupted() { return g_signal; }

void forward_interrupts_to(pid_t pid) {
  g_forward = pid;
  if (pid > 0 && g_signal) ::kill(pid, SIGTERM);  // the request came before the child existed
}

}  // namespace attnlab::process
