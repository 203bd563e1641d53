// Progress of long work on stderr: on a terminal, one line per running
// training row redrawn in place; elsewhere (a log file, CI) a plain line per
// epoch at most, and not more than one every few seconds per row; with
// --quiet, nothing but warnings. Tables on stdout are never touched.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace attnlab::report {

/// Where one training row stands (training::FitProgress, without the
/// dependency): the epoch and step running (1-based) of how many, the last
/// step's loss, and whether the row has ended.
struct RowState {
  int epoch = 0, epochs = 0, step = 0, steps = 0;
  double loss = 0;
  bool done = false;
};

class ProgressDisplay {
 public:
  enum class Mode { quiet, plain, terminal };
  using Clock = std::function<double()>;  // monotonic seconds

  static constexpr double kRedrawSeconds = 0.1;  // terminal: at most ten redraws a second
  static constexpr double kPlainSeconds = 5.0;   // plain: at most one line per row this often

  /// Writes to `out` (stderr), each line after `prefix`. `columns` is the
  /// terminal's width (0: ask `out`'s terminal, else 80); live lines are cut
  /// to it so that redrawing never wraps. `clock` is for tests.
  ProgressDisplay(std::FILE* out, Mode mode, std::string prefix = "attnlab: ", int columns = 0, Clock clock = {});
  ~ProgressDisplay();  // leaves no live line behind
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  /// The mode for stderr as it is: quiet when asked, terminal when stderr
  /// is one (and TERM is not "dumb"), plain otherwise.
  static Mode mode_for_stderr(bool quiet);

  /// A line that stays: progress notes ("running positions ..."); not in quiet mode.
  void note(const std::string& line);
  /// A line that stays in every mode: warnings and failures.
  void warn(const std::string& line);

  /// A new row named `name` ("positions: with positions"); returns its id for update().
  int add_row(const std::string& name);
  /// Thread-safe; cheap when nothing is due (called after every training step).
  void update(int id, const RowState& state);

 private:
  struct Row {
    std::string name;
    RowState state;
    double started = 0, last_line = 0;
    bool seen = false;
  };
  void write_line(const std::string& line);  // a line that stays, above the live block
  void redraw(double now);
  std::string live_text(const Row& r, double now) const;
  void erase_block();

  std::FILE* out_;
  Mode mode_;
  std::string prefix_;
  int columns_;
  Clock clock_;
  std::mutex mutex_;
  std::vector<Row> rows_;
  int drawn_ = 0;          // live lines on the screen now
  double last_draw_ = -1e300;
};

}  // namespace attnlab::report
