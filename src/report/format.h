// How the report writes numbers: bytes with a binary unit beside them, percentages and seconds.
#pragma once

#include <cstdint>
#include <string>

namespace report {

// "200.9 MiB"; "512 B" below 1 KiB.
std::string CompactBytes(int64_t bytes);

// "210690728 B (200.9 MiB)"; plain "512 B" below 1 KiB.
std::string HumanBytes(int64_t bytes);

// "12.35 %".
std::string Percent(double percent);

// "0.123 s".
std::string Seconds(double seconds);

}  // namespace report
