#include "common/interrupt.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace common {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
// The handler may only call async-signal-safe functions, so the pending path lives in a fixed buffer
// that is valid whenever g_pending_set is 1.
char g_pending[4096];
volatile std::sig_atomic_t g_pending_set = 0;

extern "C" void OnSignal(int signal_number) {
  if (g_interrupted) {
    if (g_pending_set) unlink(g_pending);
    _exit(128 + signal_number);
  }
  g_interrupted = 1;
}

}  // namespace

void InstallInterruptHandler() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool InterruptRequested() { return g_interrupted != 0; }

void ResetInterrupt() { g_interrupted = 0; }

void RequestInterrupt() { g_interrupted = 1; }

void SetPendingTempFile(const char* path) {
  g_pending_set = 0;
  if (path == nullptr || std::strlen(path) >= sizeof g_pending) return;
  std::strcpy(g_pending, path);
  // The path must be complete before the handler may see the flag.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_pending_set = 1;
}

}  // namespace common
