// Errors with context. The project reports failures one way: by throwing these exceptions, which the
// executables catch at the top and turn into a message and an exit status (see exit_codes.h).
#pragma once

#include <stdexcept>
#include <string>

namespace common {

// Bad user input: a file that cannot be read or does not follow its format. The message already
// carries its location, e.g. "plan.csv:12: size is negative".
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// Formats "file:line: what" (line 0 omits the line, for whole-file problems).
inline std::string Located(const std::string& file, long line, const std::string& what) {
  if (line <= 0) return file + ": " + what;
  return file + ":" + std::to_string(line) + ": " + what;
}

// Throws InputError("file:line: what").
[[noreturn]] inline void FailAt(const std::string& file, long line, const std::string& what) {
  throw InputError(Located(file, line, what));
}

}  // namespace common
