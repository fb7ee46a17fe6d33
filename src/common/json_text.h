// Parsing the JSON inputs of the tools (graphs, schedules, trace sidecars, allocator recordings) with one
// error for text that is not JSON.
#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/error.h"

namespace common {

// Parses `text`, read from `file`; throws InputError("file: malformed JSON: ...") when it is not JSON, a
// number too large for a double (1e400) included.
inline nlohmann::json ParseJson(const std::string& file, std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    FailAt(file, 0, fmt::format("malformed JSON: {}", e.what()));
  }
}

// The non-negative integer at `value` (a period, a byte count, an address), or InputError("file: WHAT is V,
// not a non-negative integer"): JSON numbers with a fraction or an exponent are refused, these are whole.
inline int64_t NonNegativeInteger(const nlohmann::json& value, const std::string& file, const std::string& what) {
  if (!value.is_number_integer() || value.get<int64_t>() < 0) {
    FailAt(file, 0, fmt::format("{} is {}, not a non-negative integer", what, value.dump()));
  }
  return value.get<int64_t>();
}

}  // namespace common
