#include "common/progress.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

namespace common {

void Progress::Show(const std::string& phase, const std::string& status) {
  if (!enabled_) return;
  last_draw_ = clock_.Seconds();
  fmt::print(stderr, "\r\033[K{}: {} [{:.1f} s]", phase, status, last_draw_);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::Finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

bool ProgressWanted(bool quiet) { return !quiet && isatty(STDERR_FILENO); }

}  // namespace common
