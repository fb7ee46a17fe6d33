// Checks of command-line numbers that the tools share.
#pragma once

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "common/byte_count.h"

namespace tools {

// A finite number in [low, high], or in (low, high] when `low_open`. CLI11's PositiveNumber,
// NonNegativeNumber and Range let "nan" through (every comparison with NaN is false), and a NaN time limit
// never ends a run; "inf" is refused too.
inline CLI::Validator FiniteNumber(double low, double high = std::numeric_limits<double>::max(), bool low_open = false) {
  const bool above = low_open && high == std::numeric_limits<double>::max();
  const std::string range = above ? fmt::format("above {:g}", low) : fmt::format("from {:g} to {:g}", low, high);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        const bool number = CLI::detail::lexical_cast(text, value) && std::isfinite(value);
        if (number && (low_open ? value > low : value >= low) && value <= high) return "";
        return "Value " + text + " is not a finite number " + range;
      },
      above && low == 0 ? "POSITIVE" : fmt::format("in [{:g} - {:g}]", low, high));
}

// A finite number above 0 (a time limit).
inline CLI::Validator FinitePositive() { return FiniteNumber(0, std::numeric_limits<double>::max(), true); }

// A byte count of at least 1 byte as common::ParseByteCount reads it ("1048576", "512MiB", "80GB"),
// replaced by its whole number of bytes for the option's integer.
inline CLI::Validator PositiveByteCount() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<long double> bytes = common::ParseByteCount(text);
        if (!bytes) return "'" + text + "' is not a byte count like 1048576, 512MiB or 80GB";
        if (!(*bytes < 0x1p63L)) return "'" + text + "' is more than 2^63 - 1 bytes";
        if (!(*bytes >= 1)) return "'" + text + "' is not at least 1 byte";
        text = std::to_string(static_cast<long long>(*bytes));
        return "";
      },
      "BYTES");
}

}  // namespace tools
