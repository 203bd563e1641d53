#include "report/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace attnlab::report {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int terminal_columns(std::FILE* out) {
  winsize w{};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

std::string duration(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return fmt::format("{}h{:02}m", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
}

// Elapsed time, and the rest estimated from the share of steps done.
std::string timing(const RowState& s, double elapsed) {
  const double total = static_cast<double>(s.epochs) * s.steps;
  const double done = static_cast<double>(s.epoch - 1) * s.steps + s.step;
  std::string t = duration(elapsed);
  if (done > 0 && total > done && elapsed > 0) t += ", ETA " + duration(elapsed * (total - done) / done);
  return t;
}

}  // namespace

ProgressDisplay::ProgressDisplay(std::FILE* out, Mode mode, std::string prefix, int columns, Clock clock)
    : out_(out),
      mode_(mode),
      prefix_(std::move(prefix)),
      columns_(columns > 0 ? columns : mode == Mode::terminal ? terminal_columns(out) : 80),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)) {}

ProgressDisplay::~ProgressDisplay() {
  std::lock_guard<std::mutex> lock(mutex_);
  erase_block();
  std::fflush(out_);
}

ProgressDisplay::Mode ProgressDisplay::mode_for_stderr(bool quiet) {
  if (quiet) return Mode::quiet;
  const char* term = std::getenv("TERM");
  if (::isatty(STDERR_FILENO) && !(term && std::strcmp(term, "dumb") == 0)) return Mode::terminal;
  return Mode::plain;
}

void ProgressDisplay::note(const std::string& line) {
  if (mode_ == Mode::quiet) return;
  std::lock_guard<std::mutex> lock(mutex_);
  write_line(line);
}

void ProgressDisplay::warn(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  write_line(line);
}

int ProgressDisplay::add_row(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  rows_.push_back({name, {}, 0, 0, false});
  return static_cast<int>(rows_.size()) - 1;
}

void ProgressDisplay::update(int id, const RowState& state) {
  if (mode_ == Mode::quiet) return;
  const double now = clock_();
  std::lock_guard<std::mutex> lock(mutex_);
  Row& r = rows_.at(id);
  if (!r.seen) {
    r.seen = true;
    r.started = r.last_line = now;
  }
  const bool ended = state.done && !r.state.done;
  r.state = state;
  if (mode_ == Mode::terminal) {
    // A row that ends leaves the block at once; otherwise redraw at most every kRedrawSeconds.
    if (ended || now - last_draw_ >= kRedrawSeconds) redraw(now);
    return;
  }
  // Plain: a line at the end of an epoch, when the row's last line is kPlainSeconds old.
  if (!state.done && state.step == state.steps && now - r.last_line >= kPlainSeconds) {
    r.last_line = now;
    write_line(fmt::format("{}: epoch {}/{}, loss {:.4g}, {}", r.name, state.epoch, state.epochs, state.loss,
                           timing(state, now - r.started)));
  }
}

std::string ProgressDisplay::live_text(const Row& r, double now) const {
  const RowState& s = r.state;
  std::string text = prefix_ + fmt::format("{}  epoch {}/{}  batch {}/{}  loss {:.4g}  {}", r.name, s.epoch, s.epochs,
                                           s.step, s.steps, s.loss, timing(s, now - r.started));
  // Cut to the width, so that no line wraps and the cursor arithmetic holds.
  if (static_cast<int>(text.size()) > columns_ - 1) text.resize(std::max(columns_ - 1, 0));
  return text;
}

void ProgressDisplay::erase_block() {
  if (mode_ != Mode::terminal || drawn_ == 0) return;
  std::fputs(fmt::format("\x1b[{}F\x1b[J", drawn_).c_str(), out_);  // up to the block's first line, clear below
  drawn_ = 0;
}

void ProgressDisplay::write_line(const std::string& line) {
  erase_block();
  std::fputs((prefix_ + line + "\n").c_str(), out_);
  if (mode_ == Mode::terminal) redraw(clock_());
  std::fflush(out_);
}

void ProgressDisplay::redraw(double now) {
  std::string text;
  if (drawn_ > 0) text += fmt::format("\x1b[{}F", drawn_);
  int lines = 0;
  for (const Row& r : rows_)
    if (r.seen && !r.state.done) {
      text += "\x1b[2K" + live_text(r, now) + "\n";
      ++lines;
    }
  if (lines < drawn_) text += "\x1b[J";  // rows that ended leave no line behind
  drawn_ = lines;
  last_draw_ = now;
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
}

}  // namespace attnlab::report
