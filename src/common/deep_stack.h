// Running code whose recursion goes deeper than a thread's default stack (8 MB on Linux) allows.
#pragma once

#include <cstddef>
#include <functional>

namespace common {

// Runs `work` on a thread of its own whose stack holds `bytes` (reserved address space: only the pages the
// recursion touches take memory), waits for it, and rethrows what it threw. Returns false without running it
// where no such thread can be made; the caller then runs it within its own stack.
bool RunWithStack(size_t bytes, const std::function<void()>& work);

}  // namespace common
