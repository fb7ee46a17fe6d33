// A one-line progress display on stderr for long runs: shown only when stderr is a terminal and the
// user did not ask for --quiet, redrawn at most a few times per second.
#pragma once

#include <string>

#include "common/stopwatch.h"

namespace common {

// Progress line "phase: status [elapsed s]".
class Progress {
 public:
  // `enabled` false makes every call a no-op (use ProgressWanted() to decide).
  explicit Progress(bool enabled) : enabled_(enabled) {}
  ~Progress() { Finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // True when a redraw is due (cheap; call before building the status string).
  bool Due() const { return enabled_ && clock_.Seconds() - last_draw_ >= 0.2; }
  // Redraws the line now.
  void Show(const std::string& phase, const std::string& status);
  // Ends the line (if one was drawn).
  void Finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  double last_draw_ = -1;
  Stopwatch clock_;
};

// True when stderr is a terminal and `quiet` is false.
bool ProgressWanted(bool quiet);

}  // namespace common
