// Parsing the JSON inputs of the tools (graphs, schedules, trace sidecars, allocator recordings) with one
// error for text that is not JSON.
#pragma once

#include <fmt/core.h>

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

}  // namespace common
