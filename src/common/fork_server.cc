#include "common/fork_server.h"

#include <dirent.h>
#include <fmt/core.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace common {
namespace {

using Clock = std::chrono::steady_clock;

// Frames on a client's channel. From the client: a call, or the cancellation of the call in progress.
constexpr char kCall = 'C';
constexpr char kCancel = 'X';
// From the server: how the call ended, then the text of the reply.
enum ReplyKind : char { kOk = 0, kNone = 1, kFailed = 2 };

// Sends all of data; false when the other end is gone.
bool SendAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Receives exactly size bytes; false at the end of the stream or on an error.
bool RecvAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Sends a length-prefixed string.
bool SendText(int fd, const std::string& text) {
  const auto size = static_cast<uint32_t>(text.size());
  return SendAll(fd, &size, sizeof size) && SendAll(fd, text.data(), text.size());
}

// Receives a length-prefixed string.
bool RecvText(int fd, std::string& text) {
  uint32_t size = 0;
  if (!RecvAll(fd, &size, sizeof size)) return false;
  text.resize(size);
  return RecvAll(fd, text.data(), size);
}

// Writes all of text to a pipe or a terminal, ignoring failures (the reader may be gone).
void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The last line of a child's stderr that says something: what explains its death (for Z3, the
// "terminate called after throwing ..." line).
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) return "";
  const size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

// Closes every descriptor but 0, 1, 2 and keep: a child holding another child's pipe would keep that
// pipe's end-of-file from arriving, and the server's channels are none of its business.
void CloseOtherDescriptors(int keep) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return;
  std::vector<int> fds;
  while (const dirent* e = readdir(dir)) {
    const int fd = std::atoi(e->d_name);
    if (fd > 2 && fd != keep && fd != dirfd(dir)) fds.push_back(fd);
  }
  closedir(dir);
  for (int fd : fds) close(fd);
}

// How many threads this process has; 0 when /proc cannot say.
size_t ThreadCount() {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return 0;
  size_t n = 0;
  while (const dirent* e = readdir(dir)) n += e->d_name[0] != '.';
  closedir(dir);
  return n;
}

// A call being computed in a child.
struct Child {
  pid_t pid = -1;
  int out = -1;  // the reply
  int err = -1;  // the child's stderr
  std::string out_text, err_text;
  Clock::time_point deadline;
  double limit_s = 0;
  bool cancelled = false;
  bool timed_out = false;
  std::string start_error;  // why the child could not be started (pid is then -1)
};

// The library's code, for the crash handler: the executable segments of its object file, and that file's
// name. Set once in the server process, before its first child; read by the handler only.
struct LibraryCode {
  static constexpr size_t kMaxSegments = 8;
  std::pair<uintptr_t, uintptr_t> segments[kMaxSegments] = {};  // [begin, end) of each
  size_t size = 0;
  char file[512] = {};
};
LibraryCode library_code;
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction previous_actions[std::size(kCrashSignals)];

// Finds the object file whose code holds `code` (dl_iterate_phdr) and keeps its executable segments.
void FindLibraryCode(const void* code) {
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const auto address = reinterpret_cast<uintptr_t>(data);
        LibraryCode found;
        bool holds = false;
        for (int k = 0; k < info->dlpi_phnum; ++k) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[k];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || found.size == LibraryCode::kMaxSegments) continue;
          const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          found.segments[found.size++] = {begin, begin + ph.p_memsz};
          holds = holds || (address >= begin && address < begin + ph.p_memsz);
        }
        if (!holds) return 0;
        std::snprintf(found.file, sizeof found.file, "%s", *info->dlpi_name ? info->dlpi_name : "the program");
        library_code = found;
        return 1;
      },
      const_cast<void*>(code));
}

// The address of the instruction at which a crash signal struck, or 0 where this machine's context is not
// known here.
uintptr_t CrashAddress(const void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

// Ends the process by sig with its default action, once this handler returns.
void DieBy(int sig) {
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  raise(sig);  // blocked while the handler runs, delivered as it returns: also a signal that kill() sent
}

// A crash in the library's code ends the child by the signal; any other goes to the handler that was there
// before (a sanitizer's report of the caller's bug), or to the default action.
void OnCrash(int sig, siginfo_t* info, void* context) {
  const uintptr_t at = CrashAddress(context);
  for (size_t k = 0; k < library_code.size; ++k) {
    if (at >= library_code.segments[k].first && at < library_code.segments[k].second) {
      constexpr char kSays[] = "a crash inside ";
      (void)!write(2, kSays, sizeof kSays - 1);
      (void)!write(2, library_code.file, std::strlen(library_code.file));
      (void)!write(2, "\n", 1);
      DieBy(sig);
      return;
    }
  }
  const size_t i = std::find(std::begin(kCrashSignals), std::end(kCrashSignals), sig) - std::begin(kCrashSignals);
  const struct sigaction& before = previous_actions[i];
  if (before.sa_flags & SA_SIGINFO) {
    before.sa_sigaction(sig, info, context);
  } else if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
    before.sa_handler(sig);
  } else {
    DieBy(sig);
  }
}

// In the server process, so that every child inherits it: a crash in the library's code is the library's.
void ContainLibraryCrashes(const void* code) {
  FindLibraryCode(code);
  if (library_code.size == 0) return;
  for (size_t i = 0; i < std::size(kCrashSignals); ++i) {
    struct sigaction action = {};
    action.sa_sigaction = OnCrash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;  // a sanitizer's alternate stack, where it set one up
    sigemptyset(&action.sa_mask);
    sigaction(kCrashSignals[i], &action, &previous_actions[i]);
  }
}

// Forks the child of one call: it computes the reply and writes it to a pipe, its stderr to another.
Child StartChild(const ForkServer::Handler& handler, const std::string& request, double limit_s) {
  Child c;
  int out[2], err[2];
  if (pipe(out) != 0) {
    c.start_error = fmt::format("cannot start a process: pipe: {}", std::strerror(errno));
    return c;
  }
  if (pipe(err) != 0) {
    c.start_error = fmt::format("cannot start a process: pipe: {}", std::strerror(errno));
    close(out[0]);
    close(out[1]);
    return c;
  }
  const pid_t server = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != server) _exit(1);
    const rlimit no_core{0, 0};  // an abort inside a library is expected here; no core files
    setrlimit(RLIMIT_CORE, &no_core);
    // A library that calls exit() here (Z3 on an error of its own) would run the exit handlers and static
    // destructors of the caller, which are not the child's: libFuzzer's reports the exit as the fuzz
    // target's and changes its status to 77. Registered last, this handler runs first and ends the child
    // with the library's status.
    on_exit([](int status, void*) { _exit(status); }, nullptr);
    dup2(err[1], 2);
    CloseOtherDescriptors(out[1]);
    std::string reply;
    try {
      reply = handler(request);
    } catch (const std::exception& e) {
      WriteAll(2, fmt::format("error: {}\n", e.what()));
      _exit(3);
    } catch (...) {  // nothing may unwind into the caller's stack, which the child must not run
      WriteAll(2, "error: an exception that is not a std::exception\n");
      _exit(3);
    }
    WriteAll(out[1], reply);
    _exit(0);
  }
  if (pid < 0) c.start_error = fmt::format("cannot start a process: fork: {}", std::strerror(errno));
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    return c;
  }
  c.pid = pid;
  c.out = out[0];
  c.err = err[0];
  c.limit_s = limit_s;
  c.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
  return c;
}

// Reads what a child wrote since the last time; closes the pipe at its end. False once it is closed.
bool Drain(int& fd, std::string& text) {
  char buf[65536];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0) {
    text.append(buf, static_cast<size_t>(n));
    return true;
  }
  if (n < 0 && errno == EINTR) return true;
  close(fd);
  fd = -1;
  return false;
}

// The first lines of a text (up to four, those not blank), joined by "; ": what a library says as it ends
// the process (Z3: "ASSERTION VIOLATION", the file, the line, "UNEXPECTED CODE WAS REACHED.").
std::string FirstLines(const std::string& text) {
  std::string out;
  std::istringstream lines(text);
  int kept = 0;
  for (std::string line; kept < 4 && std::getline(lines, line);) {
    if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
    out += (kept++ ? "; " : "") + line;
  }
  return out;
}

// Reaps a child whose pipes are closed and says how its call ended (library_exits: LibraryFailures's).
std::pair<ReplyKind, std::string> Finish(Child& c, const std::vector<int>& library_exits) {
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (c.cancelled) return {kNone, "cancelled"};
  if (c.timed_out) return {kNone, fmt::format("killed at its time limit of {:.2f} s", c.limit_s)};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    WriteAll(2, c.err_text);  // what the child had to say goes where it would have gone without the server
    return {kOk, std::move(c.out_text)};
  }
  const std::string last = LastLine(c.err_text);
  const std::string why = last.empty() ? "" : ": " + last;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return {kNone, fmt::format("process killed by signal {} ({}){}", sig, strsignal(sig), why)};
  }
  const int code = WEXITSTATUS(status);
  if (std::find(library_exits.begin(), library_exits.end(), code) != library_exits.end()) {
    const std::string said = FirstLines(c.err_text);
    return {kNone, fmt::format("process exited with status {}{}", code, said.empty() ? "" : ": " + said)};
  }
  WriteAll(2, c.err_text);  // a sanitizer's report, say: the whole of it
  return {kFailed, fmt::format("process exited with status {}{}", code, why)};
}

// The server's loop: takes calls and cancellations from the clients, forks a child per call, kills
// children past their deadline, and sends each reply back; returns once every client has gone.
void Serve(const std::vector<int>& clients, const ForkServer::Handler& handler,
           const std::vector<int>& library_exits) {
  std::vector<bool> open(clients.size(), true);
  std::vector<std::optional<Child>> running(clients.size());
  auto kill_child = [](Child& c) { kill(c.pid, SIGKILL); };
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, int>> what;  // (client, 0: its channel, 1: child's reply, 2: child's stderr)
    Clock::time_point next = Clock::now() + std::chrono::seconds(1);
    bool any = false;
    for (size_t i = 0; i < clients.size(); ++i) {
      if (open[i]) {
        fds.push_back({clients[i], POLLIN, 0});
        what.push_back({i, 0});
        any = true;
      }
      if (running[i]) {
        Child& c = *running[i];
        any = true;
        if (c.out >= 0) {
          fds.push_back({c.out, POLLIN, 0});
          what.push_back({i, 1});
        }
        if (c.err >= 0) {
          fds.push_back({c.err, POLLIN, 0});
          what.push_back({i, 2});
        }
        if (!c.timed_out && !c.cancelled) next = std::min(next, c.deadline);
      }
    }
    if (!any) return;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count() + 1;
    if (poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(0, wait))) < 0 && errno != EINTR) return;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const auto [i, kind] = what[k];
      if (kind == 0) {
        char frame = 0;
        std::string request;
        double limit_s = 0;
        if (!RecvAll(clients[i], &frame, 1) ||
            (frame == kCall && !(RecvAll(clients[i], &limit_s, sizeof limit_s) && RecvText(clients[i], request)))) {
          open[i] = false;  // the client has gone: nobody wants its call any more
          if (running[i]) kill_child(*running[i]);
          continue;
        }
        if (frame == kCancel && running[i] && !running[i]->timed_out) {
          running[i]->cancelled = true;
          kill_child(*running[i]);
        } else if (frame == kCall) {
          Child c = StartChild(handler, request, limit_s);
          if (c.pid < 0) {
            const char none = kNone;
            if (!SendAll(clients[i], &none, 1) || !SendText(clients[i], c.start_error)) open[i] = false;
          } else {
            running[i] = std::move(c);
          }
        }
      } else if (running[i]) {
        Child& c = *running[i];
        if (kind == 1 && c.out >= 0) Drain(c.out, c.out_text);
        if (kind == 2 && c.err >= 0) Drain(c.err, c.err_text);
      }
    }
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; i < clients.size(); ++i) {
      if (!running[i]) continue;
      Child& c = *running[i];
      if (now >= c.deadline && !c.timed_out && !c.cancelled) {
        c.timed_out = true;
        kill_child(c);
      }
      if (c.out >= 0 || c.err >= 0) continue;
      auto [kind, text] = Finish(c, library_exits);
      running[i].reset();
      if (open[i]) {
        const char k = kind;
        if (!SendAll(clients[i], &k, 1) || !SendText(clients[i], text)) open[i] = false;
      }
    }
  }
}

}  // namespace

ForkServer::ForkServer(unsigned clients, Handler handler, LibraryFailures library) {
  std::vector<int> server_ends;
  for (unsigned i = 0; i < clients; ++i) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) {
      for (int fd : fds_) close(fd);
      for (int fd : server_ends) close(fd);
      throw std::runtime_error(fmt::format("socketpair: {}", std::strerror(errno)));
    }
    fds_.push_back(pair[0]);
    server_ends.push_back(pair[1]);
  }
  const pid_t parent = getpid();
  server_ = fork();
  if (server_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    // Ctrl-C and SIGTERM are the caller's to handle: it ends its calls and then the server.
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    for (int fd : fds_) close(fd);
    if (library.code) ContainLibraryCrashes(library.code);
    // Nothing may unwind out of here: the stack below is the caller's, which the server must not run.
    try {
      Serve(server_ends, handler, library.exit_statuses);
    } catch (...) {
      _exit(1);
    }
    _exit(0);
  }
  for (int fd : server_ends) close(fd);
  if (server_ < 0) {
    for (int fd : fds_) close(fd);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  }
  // Checked, not trusted: with another thread the children hang only now and then (one inside ASan's
  // allocator, 2026-12-04: a progress thread was allocating at the fork), never in a small test. Counted
  // after the fork: the fork handlers of libraries end their idle threads first (Z3's timer threads).
  if (const size_t threads = ThreadCount(); threads > 1) {
    for (int fd : fds_) close(fd);
    kill(server_, SIGKILL);
    while (waitpid(server_, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw std::logic_error(fmt::format(
        "a fork server started while this process had {} threads: a lock another thread held at the fork "
        "would stay held in every child",
        threads));
  }
}

ForkServer::~ForkServer() {
  for (int fd : fds_) close(fd);
  while (waitpid(server_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

ForkServer::Reply ForkServer::Call(unsigned client, const std::string& request, double limit_s,
                                   const std::atomic<bool>* cancel) {
  const int fd = fds_.at(client);
  Reply out;
  if (!SendAll(fd, &kCall, 1) || !SendAll(fd, &limit_s, sizeof limit_s) || !SendText(fd, request)) {
    out.text = "the server process has ended";
    return out;
  }
  bool cancel_sent = false;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 10) > 0) break;
    if (cancel && cancel->load() && !cancel_sent) cancel_sent = SendAll(fd, &kCancel, 1);
  }
  char kind = kNone;
  if (!RecvAll(fd, &kind, 1) || !RecvText(fd, out.text)) {
    out.text = "the server process has ended";
    return out;
  }
  out.ok = kind == kOk;
  out.failed = kind == kFailed;
  return out;
}

}  // namespace common
