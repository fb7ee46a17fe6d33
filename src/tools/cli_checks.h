// Checks of command-line numbers that the tools share.
#pragma once

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <limits>
#include <string>

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

}  // namespace tools
