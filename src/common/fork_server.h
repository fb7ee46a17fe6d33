// Runs calls of one function in child processes, so that a call can be ended by killing its process.
//
// Why a server: a library that cannot be stopped safely from outside (Z3 4.8.12 can abort the whole
// process when a solver run is interrupted at an unlucky moment) is safe to stop in a child. Forking
// a multi-threaded process is not safe (the child inherits every lock as it was, held by threads that
// do not exist in the child), so the server is forked once, while the caller has no other thread; it
// stays single-threaded and forks one child per call. The children see the caller's memory as it was
// when the server was forked, so a call passes only a short request (an index, limits) and gets a
// string back.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace common {

// How a library that the handler calls fails on its own, by no bug of the caller's: a call that ends so
// has no reply, as a killed one, instead of failing, and its text says what the child wrote to stderr.
struct LibraryFailures {
  // The statuses with which it ends the process itself on an error of its own (Z3 calls exit() with its
  // error codes).
  std::vector<int> exit_statuses = {};
  // An address in its code (one of its functions, as a position-independent executable sees it), or null: a
  // child that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL) at an instruction of that object file dies by the
  // signal, with a last line on stderr naming the file, even where a sanitizer would report the crash as
  // the caller's bug and exit; a crash elsewhere goes to the handler that was there before.
  const void* code = nullptr;
};

// One server process and the channels of its clients (threads of the caller, each with its own).
class ForkServer {
 public:
  // Computes a call's reply in the child from its request.
  using Handler = std::function<std::string(const std::string& request)>;

  // The outcome of one call: the handler's reply, or why there is none.
  struct Reply {
    bool ok = false;
    std::string text;   // the reply when ok, else why there is none ("killed by signal 6 (...)", ...)
    bool failed = false;  // not ok because the child exited with a non-zero status (a sanitizer report,
                          // a bug), not because it was killed or cancelled, nor by one of the LibraryFailures
  };

  // Forks the server. Call it while this process has no other thread: glibc makes its malloc and stdio
  // safe in a child, but not ASan's allocator nor a library's own locks. Throws std::logic_error when another
  // thread is there after the fork (threads that a library's fork handlers end, as Z3 ends its idle timer
  // threads, do not count). clients: how many threads will call Call (numbered 0..clients-1).
  // library: how a library that the handler calls fails on its own.
  ForkServer(unsigned clients, Handler handler, LibraryFailures library = {});
  // Ends the server and waits for it; every call must have returned.
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  // Runs handler(request) in a fresh child and waits for its reply. The child is killed once limit_s
  // seconds have passed, or within about 10 ms after *cancel becomes true. One call at a time per client.
  Reply Call(unsigned client, const std::string& request, double limit_s, const std::atomic<bool>* cancel);

 private:
  pid_t server_ = -1;
  std::vector<int> fds_;  // this process's end of each client's channel
};

}  // namespace common
