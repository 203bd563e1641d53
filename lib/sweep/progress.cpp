#include "sweep/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace attnlab::sweep {

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}h{:02d}m", s / 3600, (s % 3600) / 60);
}

std::string Progress::summary(const Counts& c) {
  return fmt::format("{} done, {} failed, {} running, {} to run", c.done, c.failed, c.running, c.to_run);
}

Progress::Progress(std::FILE* out, bool live, Counts start)
    : out_(out), live_(live), counts_(start), t0_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { close(); }

std::string Progress::status_line() const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const std::size_t remaining = counts_.running + counts_.to_run;
  // Runs finish at the rate seen so far in this invocation.
  const std::string eta =
      finished_here_ ? format_duration(elapsed / static_cast<double>(finished_here_) * static_cast<double>(remaining))
                     : std::string("--");
  return fmt::format("sweep: {} · {} elapsed · ETA {}", summary(counts_), format_duration(elapsed), eta);
}

void Progress::draw() {
  if (!live_ || closed_) return;
  std::fprintf(out_, "\r\033[K%s", status_line().c_str());
  std::fflush(out_);
  line_shown_ = true;
  drawn_ = std::chrono::steady_clock::now();
}

void Progress::print_above(const std::string& text) {
  if (live_ && line_shown_) std::fputs("\r\033[K", out_);
  std::fprintf(out_, "%s\n", text.c_str());
  line_shown_ = false;
  if (live_) draw();
  else std::fflush(out_);
}

void Progress::started() {
  if (counts_.to_run) --counts_.to_run;
  ++counts_.running;
  draw();
}

void Progress::leave_running() {
  // A run seen only once it had ended (a Slurm task between two looks) was never counted as running.
  if (counts_.running) --counts_.running;
  else if (counts_.to_run) --counts_.to_run;
}

void Progress::finished_ok(const std::string& what, double seconds) {
  leave_running();
  ++counts_.done;
  ++finished_here_;
  if (live_) draw();
  else print_above(fmt::format("attnlab: sweep: {} ok in {:.1f} s; {}", what, seconds, summary(counts_)));
}

void Progress::finished_failed(const std::string& what, const std::string& error, const std::string& log) {
  leave_running();
  ++counts_.failed;
  ++finished_here_;
  // Said at once, not at the end of the sweep.
  print_above(fmt::format("attnlab: sweep: {} FAILED: {}\n  its stderr: {}{}", what, error, log,
                          live_ ? "" : "\nattnlab: sweep: " + summary(counts_)));
}

void Progress::gave_up(const std::string&) {
  if (counts_.running) --counts_.running;
  ++counts_.to_run;
  draw();
}

void Progress::line(const std::string& text) { print_above(text); }

void Progress::tick() {
  if (live_ && std::chrono::steady_clock::now() - drawn_ >= std::chrono::seconds(1)) draw();
}

void Progress::close() {
  if (closed_) return;
  if (live_ && line_shown_) {
    std::fprintf(out_, "\r\033[K%s\n", status_line().c_str());  // the last state stays on screen
    std::fflush(out_);
  }
  closed_ = true;
}

}  // namespace attnlab::sweep
