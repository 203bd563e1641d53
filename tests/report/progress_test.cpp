// The progress display on a (pretend) terminal, in a log, and quiet; the
// clock is the test's, so every redraw and every line is predictable.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "report/progress.hpp"

namespace attnlab::testing {
namespace {

using report::ProgressDisplay;
using report::RowState;

// A FILE* whose bytes the test can read.
struct Capture {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* file = open_memstream(&buffer, &size);
  ~Capture() {
    std::fclose(file);
    std::free(buffer);
  }
  std::string take() {
    std::fflush(file);
    std::string s(buffer, size);
    std::rewind(file);
    size = 0;
    return s;
  }
};

struct Fixture {
  Capture out;
  double now = 100.0;
  std::unique_ptr<ProgressDisplay> display;
  Fixture(ProgressDisplay::Mode mode, int columns = 120)
      : display(std::make_unique<ProgressDisplay>(out.file, mode, "attnlab: ", columns, [this] { return now; })) {}
};

RowState at(int epoch, int step, double loss, bool done = false) { return {epoch, 10, step, 125, loss, done}; }

TEST(ProgressDisplay, ATerminalRedrawsOneLinePerRunningRowInPlace) {
  Fixture f(ProgressDisplay::Mode::terminal);
  const int a = f.display->add_row("positions: no positions");
  const int b = f.display->add_row("positions: with positions");
  f.display->update(a, at(1, 1, 0.6931));
  EXPECT_EQ(f.out.take(), "\x1b[2Kattnlab: positions: no positions  epoch 1/10  batch 1/125  loss 0.6931  0.0 s\n");
  f.now += 0.05;  // sooner than kRedrawSeconds: nothing drawn
  f.display->update(b, at(1, 1, 0.7));
  EXPECT_EQ(f.out.take(), "");
  f.now += 0.2;  // both rows: up one line (the block drawn), then two lines
  f.display->update(a, at(1, 126 / 2, 0.65));
  EXPECT_EQ(f.out.take(),
            "\x1b[1F"
            "\x1b[2Kattnlab: positions: no positions  epoch 1/10  batch 63/125  loss 0.65  0.2 s, ETA 4.7 s\n"
            "\x1b[2Kattnlab: positions: with positions  epoch 1/10  batch 1/125  loss 0.7  0.2 s, ETA 4m09s\n");
}

TEST(ProgressDisplay, ALineThatStaysGoesAboveTheLiveRows) {
  Fixture f(ProgressDisplay::Mode::terminal);
  const int a = f.display->add_row("heads: 4");
  f.display->update(a, at(2, 5, 0.5));
  f.out.take();
  f.display->note("running heads (experiments/heads.json)");
  // erase the block, print the line, draw the block again below it
  EXPECT_EQ(f.out.take(),
            "\x1b[1F\x1b[J"
            "attnlab: running heads (experiments/heads.json)\n"
            "\x1b[2Kattnlab: heads: 4  epoch 2/10  batch 5/125  loss 0.5  0.0 s\n");
}

TEST(ProgressDisplay, ARowThatEndsLeavesNoLineBehind) {
  Fixture f(ProgressDisplay::Mode::terminal);
  const int a = f.display->add_row("bottleneck: 64");
  f.display->update(a, at(1, 1, 0.7));
  f.out.take();
  f.now += 0.01;  // a row's end is drawn at once, however soon
  f.display->update(a, at(10, 125, 0.1, true));
  EXPECT_EQ(f.out.take(), "\x1b[1F\x1b[J");
  f.display.reset();  // nothing left to erase
  EXPECT_EQ(f.out.take(), "");
}

TEST(ProgressDisplay, LiveLinesAreCutToTheTerminalsWidth) {
  Fixture f(ProgressDisplay::Mode::terminal, 30);
  const int a = f.display->add_row("rnn_vs_attention: attention, 2 blocks");
  f.display->update(a, at(1, 1, 0.7));
  const std::string s = f.out.take();
  EXPECT_EQ(s, "\x1b[2K" + std::string("attnlab: rnn_vs_attention: at") + "\n");  // 29 columns: no wrap
  f.display.reset();
  EXPECT_EQ(f.out.take(), "\x1b[1F\x1b[J");  // the destructor clears what it drew
}

TEST(ProgressDisplay, ALogGetsAtMostOneLinePerEpochAndNotOftenerThanEveryFewSeconds) {
  Fixture f(ProgressDisplay::Mode::plain);
  const int a = f.display->add_row("positions: with positions");
  f.display->update(a, at(1, 1, 0.69));
  for (int step = 2; step < 125; ++step) f.display->update(a, at(1, step, 0.6));
  EXPECT_EQ(f.out.take(), "");  // within an epoch: nothing
  f.now += 2;
  f.display->update(a, at(1, 125, 0.6));
  EXPECT_EQ(f.out.take(), "");  // an epoch's end, but only 2 s after the row started
  f.now += 4;
  f.display->update(a, at(2, 125, 0.5));
  EXPECT_EQ(f.out.take(), "attnlab: positions: with positions: epoch 2/10, loss 0.5, 6.0 s, ETA 24.0 s\n");
  f.now += 1;
  f.display->update(a, at(3, 125, 0.4));
  EXPECT_EQ(f.out.take(), "");  // 1 s after the last line
  f.now += 5;
  f.display->update(a, at(4, 125, 0.3));
  EXPECT_EQ(f.out.take(), "attnlab: positions: with positions: epoch 4/10, loss 0.3, 12.0 s, ETA 18.0 s\n");
  f.display->update(a, at(10, 125, 0.1, true));
  f.display->note("positions: with positions done in 30.0 s");
  EXPECT_EQ(f.out.take(), "attnlab: positions: with positions done in 30.0 s\n");
  EXPECT_EQ(f.out.take().find('\x1b'), std::string::npos);  // never an escape sequence in a log
}

TEST(ProgressDisplay, QuietShowsOnlyWarnings) {
  Fixture f(ProgressDisplay::Mode::quiet);
  const int a = f.display->add_row("positions: no positions");
  f.now += 60;
  f.display->update(a, at(1, 125, 0.6));
  f.display->note("running positions");
  EXPECT_EQ(f.out.take(), "");
  f.display->warn("warning: the loss rose");
  EXPECT_EQ(f.out.take(), "attnlab: warning: the loss rose\n");
}

TEST(ProgressDisplay, SmallLossesKeepTheirDigits) {
  Fixture f(ProgressDisplay::Mode::terminal);
  const int a = f.display->add_row("positions: with positions");
  f.display->update(a, at(1, 7000, 2.345e-05));  // a model that has learned: not "0.0000"
  EXPECT_NE(f.out.take().find("loss 2.345e-05"), std::string::npos);
}

TEST(ProgressDisplay, LongRunsShowMinutesAndHours) {
  Fixture f(ProgressDisplay::Mode::plain);
  const int a = f.display->add_row("r");
  f.display->update(a, at(1, 1, 1));
  f.now += 3725;  // 1h02m05s for the first of ten epochs
  f.display->update(a, at(1, 125, 1));
  EXPECT_EQ(f.out.take(), "attnlab: r: epoch 1/10, loss 1, 1h02m, ETA 9h18m\n");
}

}  // namespace
}  // namespace attnlab::testing
