#include "common/byte_count.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <utility>

namespace common {

std::optional<long double> ParseByteCount(std::string_view text) {
  const size_t point = text.find('.');
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || end == point)) ++end;
  const std::string_view whole = text.substr(0, std::min(point, end));
  const std::string_view fraction = point < end ? text.substr(point + 1, end - point - 1) : std::string_view();
  if (whole.empty() && fraction.empty()) return std::nullopt;
  std::string unit(text.substr(end));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::array<std::pair<std::string_view, int64_t>, 10> kUnits = {{
      {"", 1}, {"b", 1}, {"kb", 1'000}, {"mb", 1'000'000}, {"gb", 1'000'000'000}, {"tb", 1'000'000'000'000},
      {"kib", int64_t{1} << 10}, {"mib", int64_t{1} << 20}, {"gib", int64_t{1} << 30}, {"tib", int64_t{1} << 40}}};
  int64_t scale = 0;
  for (const auto& [name, value] : kUnits) {
    if (unit == name) scale = value;
  }
  if (scale == 0 || (point < end && unit.empty())) return std::nullopt;
  // Exact in integers: whole × scale + floor(fraction × scale / 10^digits), with the fraction cut to 18
  // digits (what is cut is worth less than 10^-6 bytes). 128 bits hold every intermediate.
  __extension__ using Wide = __int128;
  Wide bytes = 0;
  for (const char c : whole) {
    bytes = bytes * 10 + (c - '0');
    if (bytes > (Wide{1} << 64)) return static_cast<long double>(bytes);  // far out of range already
  }
  bytes *= scale;
  Wide numerator = 0, denominator = 1;
  for (const char c : fraction.substr(0, 18)) {
    numerator = numerator * 10 + (c - '0');
    denominator *= 10;
  }
  bytes += numerator * scale / denominator;
  return static_cast<long double>(bytes);
}

}  // namespace common
