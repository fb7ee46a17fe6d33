// Escaping user-supplied text (buffer ids, file names) for HTML and SVG, whose pictures and pages the tools
// write: in element content and in quoted attribute values.
#pragma once

#include <string>
#include <string_view>

namespace common {

// Replaces & < > " ' by their character references.
inline std::string EscapeMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace common
