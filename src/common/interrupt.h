// Ctrl-C and SIGTERM handling for anytime planners: the first signal asks the planner to stop and write
// the best plan found so far; a second one ends the process at once.
#pragma once

#include <csignal>

namespace common {

// Installs the SIGINT/SIGTERM handlers (idempotent).
void InstallInterruptHandler();

// True once SIGINT or SIGTERM has been received.
bool InterruptRequested();

// Clears the flag (tests use it between runs).
void ResetInterrupt();

// For a program that embeds the planners (the Python bindings): while it lives, SIGINT and SIGTERM set the
// flag, and a second signal does not end the process; the flag is cleared, and the handlers it replaced
// are put back, when it ends.
class ScopedInterruptHandler {
 public:
  ScopedInterruptHandler();
  ~ScopedInterruptHandler();
  ScopedInterruptHandler(const ScopedInterruptHandler&) = delete;
  ScopedInterruptHandler& operator=(const ScopedInterruptHandler&) = delete;

 private:
  struct sigaction saved_int_ {};
  struct sigaction saved_term_ {};
};

// Names the temporary file being written (WriteFileAtomically), which a second signal removes before it
// ends the process, so that no half-written temporary is left beside the output; nullptr: none.
void SetPendingTempFile(const char* path);

}  // namespace common
