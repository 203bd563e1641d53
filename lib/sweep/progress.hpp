// What a sweep says on stderr while it runs. On a terminal: one live line
// (done / failed / running / to run, elapsed, ETA) redrawn in place, with
// failures printed above it as they happen. Otherwise (a log, CI): one
// plain line per finished run. stdout stays for the aggregated tables.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace attnlab::sweep {

struct Counts {
  std::size_t done = 0, failed = 0, running = 0, to_run = 0;
};

class Progress {
 public:
  /// `live`: redraw one line in place (stderr is a terminal).
  Progress(std::FILE* out, bool live, Counts start);
  ~Progress();

  void started();                                  // one run left "to run" for "running"
  void finished_ok(const std::string& what, double seconds);
  void finished_failed(const std::string& what, const std::string& error, const std::string& log);
  void gave_up(const std::string& what);           // a started run returned to "to run" (interrupted)
  void line(const std::string& text);              // any other message, kept above the live line
  void tick();                                     // redraws the live line, at most once a second
  void close();                                    // clears the live line for good

  const Counts& counts() const { return counts_; }

  /// "3 done, 1 failed, 2 running, 4 to run"
  static std::string summary(const Counts& c);

 private:
  void print_above(const std::string& text);
  void leave_running();
  void draw();
  std::string status_line() const;

  std::FILE* out_;
  bool live_;
  Counts counts_;
  std::size_t finished_here_ = 0;
  std::chrono::steady_clock::time_point t0_, drawn_;
  bool line_shown_ = false, closed_ = false;
};

/// "42s", "3m05s", "1h02m": elapsed and remaining times.
std::string format_duration(double seconds);

}  // namespace attnlab::sweep
