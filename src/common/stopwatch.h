// Wall-clock time measurement for time budgets and reports.
#pragma once

#include <chrono>

namespace common {

// Seconds elapsed since construction (monotonic clock).
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace common
