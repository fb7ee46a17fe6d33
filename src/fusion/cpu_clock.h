// The CPU time of one thread: the solver watchdog and the concrete search limit their work by it, so that
// on the loaded shared machine a run gets the same work as on an idle one.
#pragma once

#include <pthread.h>
#include <time.h>

namespace fusion {

// CPU seconds the thread that created it has used so far; other threads can read it too.
struct ThreadCpuClock {
  clockid_t id{};
  bool ok = pthread_getcpuclockid(pthread_self(), &id) == 0;
  double Seconds() const {
    timespec ts{};
    if (!ok || clock_gettime(id, &ts) != 0) return 0;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
};

}  // namespace fusion
