#include "common/atomic_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/interrupt.h"

namespace common {

void WriteFileAtomically(const std::string& path, std::string_view contents) {
  // The temporary lives in the same directory, so that rename() is atomic (same file system).
  std::string temp = path + ".tmp.XXXXXX";
  // A second Ctrl-C between the temporary's creation and its registration would leave it behind (seen once
  // in CI, InterruptTest.AllocSecondSigintLeavesAValidPlanOrNone): the two happen with the signals blocked.
  sigset_t interrupts, before;
  sigemptyset(&interrupts);
  sigaddset(&interrupts, SIGINT);
  sigaddset(&interrupts, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &interrupts, &before);
  int fd = mkstemp(temp.data());
  const int mkstemp_errno = errno;
  if (fd >= 0) SetPendingTempFile(temp.c_str());
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (fd < 0) FailAt(path, 0, std::string("cannot write: ") + std::strerror(mkstemp_errno));
  // Every way out below has removed or renamed the temporary.
  struct Clear {
    ~Clear() { SetPendingTempFile(nullptr); }
  } clear;
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      FailAt(path, 0, std::string("cannot write: ") + std::strerror(err));
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp creates the file 0600; outputs are ordinary user files.
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    FailAt(path, 0, std::string("cannot write: ") + std::strerror(err));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    FailAt(path, 0, std::string("cannot write: ") + std::strerror(err));
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) FailAt(path, 0, std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) FailAt(path, 0, "cannot read: I/O error");
  return buffer.str();
}

}  // namespace common
