// Ctrl-C and SIGTERM handling for anytime planners: the first signal asks the planner to stop and write
// the best plan found so far; a second one ends the process at once.
#pragma once

namespace common {

// Installs the SIGINT/SIGTERM handlers (idempotent).
void InstallInterruptHandler();

// True once SIGINT or SIGTERM has been received.
bool InterruptRequested();

// Clears the flag (tests use it between runs).
void ResetInterrupt();

// Sets the flag as a first signal does, without the handlers' second-signal exit: for a signal handler of a
// program that embeds the planners (the Python bindings). Async-signal-safe.
void RequestInterrupt();

// Names the temporary file being written (WriteFileAtomically), which a second signal removes before it
// ends the process, so that no half-written temporary is left beside the output; nullptr: none.
void SetPendingTempFile(const char* path);

}  // namespace common
