// ScopedInterruptHandler: signals set the flag while it lives, a second one does not end the process, and the
// previous handlers and a clear flag come back when it ends.
#include "common/interrupt.h"

#include <gtest/gtest.h>

#include <csignal>

namespace common {
namespace {

volatile std::sig_atomic_t g_previous_calls = 0;
extern "C" void CountSignal(int) { g_previous_calls = g_previous_calls + 1; }

TEST(ScopedInterruptHandler, SignalsSetTheFlagWhileItLivesAndThePreviousHandlerComesBack) {
  struct sigaction previous {}, saved_int {}, saved_term {};
  previous.sa_handler = CountSignal;
  sigemptyset(&previous.sa_mask);
  sigaction(SIGINT, &previous, &saved_int);
  sigaction(SIGTERM, &previous, &saved_term);
  ResetInterrupt();
  {
    ScopedInterruptHandler scope;
    EXPECT_FALSE(InterruptRequested());
    std::raise(SIGINT);
    EXPECT_TRUE(InterruptRequested());
    std::raise(SIGTERM);  // a second signal: still here
    EXPECT_TRUE(InterruptRequested());
    EXPECT_EQ(g_previous_calls, 0);
  }
  EXPECT_FALSE(InterruptRequested());
  std::raise(SIGINT);
  EXPECT_EQ(g_previous_calls, 1);
  EXPECT_FALSE(InterruptRequested());
  sigaction(SIGINT, &saved_int, nullptr);
  sigaction(SIGTERM, &saved_term, nullptr);
}

}  // namespace
}  // namespace common
