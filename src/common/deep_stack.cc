#include "common/deep_stack.h"

#include <pthread.h>

#include <exception>

namespace common {
namespace {

// What the thread runs, and what it threw.
struct Job {
  const std::function<void()>* work = nullptr;
  std::exception_ptr thrown = nullptr;
};

void* RunJob(void* arg) {
  Job& job = *static_cast<Job*>(arg);
  try {
    (*job.work)();
  } catch (...) {
    job.thrown = std::current_exception();
  }
  return nullptr;
}

}  // namespace

bool RunWithStack(size_t bytes, const std::function<void()>& work) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  Job job{&work};
  pthread_t thread;
  const bool made = pthread_attr_setstacksize(&attr, bytes) == 0 && pthread_create(&thread, &attr, RunJob, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!made) return false;
  pthread_join(thread, nullptr);
  if (job.thrown) std::rethrow_exception(job.thrown);
  return true;
}

}  // namespace common
