#include "common/interrupt.h"

#include <csignal>
#include <cstdlib>
#include <unistd.h>

namespace common {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void OnSignal(int signal_number) {
  if (g_interrupted) _exit(128 + signal_number);
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

}  // namespace common
