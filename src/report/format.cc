#include "report/format.h"

#include <fmt/core.h>

namespace report {

std::string CompactBytes(int64_t bytes) {
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double scaled = static_cast<double>(bytes);
  int unit = -1;
  while (unit < 3 && (scaled >= 1024 || scaled <= -1024)) {
    scaled /= 1024;
    ++unit;
  }
  if (unit < 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.1f} {}", scaled, kUnits[unit]);
}

std::string HumanBytes(int64_t bytes) {
  if (bytes < 1024 && bytes > -1024) return fmt::format("{} B", bytes);
  return fmt::format("{} B ({})", bytes, CompactBytes(bytes));
}

std::string Percent(double percent) { return fmt::format("{:.2f} %", percent); }

std::string Seconds(double seconds) { return fmt::format("{:.3f} s", seconds); }

}  // namespace report
