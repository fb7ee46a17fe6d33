// Byte counts as people write them on command lines: "1048576", "512MiB", "1.5GiB", "80GB".
#pragma once

#include <optional>
#include <string_view>

namespace common {

// The number of bytes `text` stands for: a non-negative decimal number, then optionally a unit, B, KB, MB,
// GB or TB (powers of 1000, as their SI names say) or KiB, MiB, GiB or TiB (powers of 1024), in any letter
// case and with no space before it. A fraction needs a unit ("1.5GiB"); the count is rounded down to whole
// bytes, exactly. A caller checks the range it needs (the value is exact below 2^64). nullopt for anything
// else (a sign, an exponent, "inf", an unknown unit).
std::optional<long double> ParseByteCount(std::string_view text);

}  // namespace common
