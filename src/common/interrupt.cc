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

extern "C" void OnSignalEmbedded(int) { g_interrupted = 1; }

// Makes `handler` the SIGINT and SIGTERM handler; the previous ones go to the saved_* where not null.
void Install(void (*handler)(int), struct sigaction* saved_int, struct sigaction* saved_term) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, saved_int);
  sigaction(SIGTERM, &action, saved_term);
}

}  // namespace

void InstallInterruptHandler() { Install(OnSignal, nullptr, nullptr); }

ScopedInterruptHandler::ScopedInterruptHandler() {
  g_interrupted = 0;
  Install(OnSignalEmbedded, &saved_int_, &saved_term_);
}

ScopedInterruptHandler::~ScopedInterruptHandler() {
  sigaction(SIGINT, &saved_int_, nullptr);
  sigaction(SIGTERM, &saved_term_, nullptr);
  g_interrupted = 0;
}

bool InterruptRequested() { return g_interrupted != 0; }

void ResetInterrupt() { g_interrupted = 0; }


void SetPendingTempFile(const char* path) {
  g_pending_set = 0;
  if (path == nullptr || std::strlen(path) >= sizeof g_pending) return;
  std::strcpy(g_pending, path);
  // The path must be complete before the handler may see the flag.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_pending_set = 1;
}

}  // namespace common
