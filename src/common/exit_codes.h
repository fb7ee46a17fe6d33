// Exit statuses shared by every executable of the project (documented in the README).
#pragma once

namespace common {

// The run did what was asked (a plan was written; a target, if any, was met).
inline constexpr int kExitOk = 0;
// A plan was written but misses the requested target (--capacity, --budget), or a validator found errors.
inline constexpr int kExitTargetMissed = 1;
// Bad input or bad usage; nothing was written.
inline constexpr int kExitBadInput = 2;
// An internal error (a bug): the message says what failed.
inline constexpr int kExitInternal = 3;
// Stopped by SIGINT/SIGTERM; the best plan found so far was written.
inline constexpr int kExitInterrupted = 130;

}  // namespace common
