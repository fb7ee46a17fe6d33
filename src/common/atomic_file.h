// Writing outputs so that an interrupted run never leaves a half-written file behind.
#pragma once

#include <string>
#include <string_view>

namespace common {

// Writes `contents` to a temporary file beside `path`, flushes it to disk and renames it over `path`.
// Either the old file (or none) or the complete new one exists at every moment. Throws InputError naming
// the path when it cannot be written.
void WriteFileAtomically(const std::string& path, std::string_view contents);

// Reads a whole file; throws InputError("path: cannot read: reason") when it cannot.
std::string ReadFile(const std::string& path);

}  // namespace common
