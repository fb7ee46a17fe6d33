#include "common/fork_server.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace common {
namespace {

// A handler whose request says what the child does: "echo X" replies X; "abort" writes a line to stderr
// and aborts (as Z3 does); "exit N" exits with status N; "z3 N" writes what Z3 4.8.12 writes when it
// reaches code it deems unreachable and exits with status N; "throw" throws; "sleep" never ends on its own;
// "state" replies with what the caller's memory held when the server was forked; "segv" writes to an address
// that is not mapped (not null, which UBSan would report first).
std::string Behave(const std::string& request, const std::string& state) {
  if (request.rfind("echo ", 0) == 0) return request.substr(5);
  if (request == "abort") {
    std::fputs("terminate called after throwing an instance of 'rewriter_exception'\n", stderr);
    std::abort();
  }
  if (request.rfind("exit ", 0) == 0) _exit(std::stoi(request.substr(5)));
  if (request.rfind("z3 ", 0) == 0) {
    std::fputs("ASSERTION VIOLATION\nFile: ./src/qe/mbp/mbp_arrays.cpp\nLine: 477\nUNEXPECTED CODE WAS REACHED.\n"
               "4.8.12.0\nPlease file an issue with this message and more detail about how you encountered it\n",
               stderr);
    std::exit(std::stoi(request.substr(3)));
  }
  if (request == "throw") throw std::runtime_error("handler failed");
  if (request == "sleep") {
    for (;;) pause();
  }
  if (request == "state") return state;
  if (request == "segv") {
    int* volatile unmapped = reinterpret_cast<int*>(64);
    *unmapped = 1;
  }
  return "?";
}

TEST(ForkServer, ReturnsTheHandlersReply) {
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); });
  const ForkServer::Reply reply = server.Call(0, "echo hello", 10, nullptr);
  EXPECT_TRUE(reply.ok);
  EXPECT_FALSE(reply.failed);
  EXPECT_EQ(reply.text, "hello");
  // A long reply arrives whole (it is larger than a pipe's buffer).
  const std::string big(300000, 'x');
  const ForkServer::Reply long_reply = server.Call(0, "echo " + big, 10, nullptr);
  EXPECT_TRUE(long_reply.ok);
  EXPECT_EQ(long_reply.text, big);
}

TEST(ForkServer, RefusesToStartWhileAnotherThreadRuns) {
  std::atomic<bool> done = false;
  std::thread other([&done] {
    while (!done) std::this_thread::yield();
  });
  EXPECT_THROW(ForkServer(1, [](const std::string& r) { return Behave(r, ""); }), std::logic_error);
  done = true;
  other.join();
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); });
  EXPECT_EQ(server.Call(0, "echo alone", 10, nullptr).text, "alone");
}

TEST(ForkServer, ChildrenSeeTheMemoryAsItWasAtTheFork) {
  std::string state = "before";
  ForkServer server(1, [&state](const std::string& r) { return Behave(r, state); });
  state = "after";  // the children are forked from the server, which has its own copy
  EXPECT_EQ(server.Call(0, "state", 10, nullptr).text, "before");
  EXPECT_EQ(state, "after");
}

TEST(ForkServer, AnAbortInTheChildIsAReplyNotACrash) {
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); });
  const ForkServer::Reply reply = server.Call(0, "abort", 10, nullptr);
  EXPECT_FALSE(reply.ok);
  EXPECT_FALSE(reply.failed);
  EXPECT_NE(reply.text.find("signal 6"), std::string::npos) << reply.text;
  EXPECT_NE(reply.text.find("rewriter_exception"), std::string::npos) << reply.text;
  // The server goes on serving.
  EXPECT_EQ(server.Call(0, "echo again", 10, nullptr).text, "again");
}

TEST(ForkServer, ANonZeroExitOrAnExceptionIsAFailure) {
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); });
  const ForkServer::Reply exited = server.Call(0, "exit 7", 10, nullptr);
  EXPECT_FALSE(exited.ok);
  EXPECT_TRUE(exited.failed);
  EXPECT_NE(exited.text.find("status 7"), std::string::npos) << exited.text;
  const ForkServer::Reply thrown = server.Call(0, "throw", 10, nullptr);
  EXPECT_FALSE(thrown.ok);
  EXPECT_TRUE(thrown.failed);
  EXPECT_NE(thrown.text.find("handler failed"), std::string::npos) << thrown.text;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif

TEST(ForkServer, ACrashInTheLibrarysCodeIsNoReplyNotAFailure) {
  LibraryFailures self;  // here the library is this test program, whose code crashes
  self.code = reinterpret_cast<const void*>(&Behave);
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); }, self);
  const ForkServer::Reply reply = server.Call(0, "segv", 10, nullptr);
  EXPECT_FALSE(reply.ok);
  EXPECT_FALSE(reply.failed);
  EXPECT_EQ(reply.text, "process killed by signal 11 (Segmentation fault): a crash inside the program") << reply.text;
  EXPECT_EQ(server.Call(0, "echo again", 10, nullptr).text, "again");
}

TEST(ForkServer, ACrashOutsideTheLibrarysCodeIsTheCallersAsWithoutOne) {
  LibraryFailures libc;
  libc.code = reinterpret_cast<const void*>(&getpid);
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); }, libc);
  const ForkServer::Reply reply = server.Call(0, "segv", 10, nullptr);
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.text.find("a crash inside"), std::string::npos) << reply.text;
  // The sanitizer's handler still gets the crash, reports it, and exits: the caller's bug, a failure.
  EXPECT_EQ(reply.failed, kAddressSanitizer) << reply.text;
  if (!kAddressSanitizer) {
    EXPECT_NE(reply.text.find("signal 11"), std::string::npos) << reply.text;
  }
  EXPECT_EQ(server.Call(0, "echo again", 10, nullptr).text, "again");
}

// The process that runs the tests: an exit handler of the caller's (below) acts only in its children.
const pid_t kTestProcess = getpid();

TEST(ForkServer, AnExitStatusOfTheLibrarysOwnIsNoReplyNotAFailure) {
  // As libFuzzer's exit handler does, one that the caller registered before the fork turns any exit into
  // status 77; the child must end with the library's status before it runs.
  std::atexit([] {
    if (getpid() != kTestProcess) _exit(77);
  });
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); },
                    LibraryFailures{.exit_statuses = {101, 114}});
  const ForkServer::Reply z3 = server.Call(0, "z3 114", 10, nullptr);
  EXPECT_FALSE(z3.ok);
  EXPECT_FALSE(z3.failed);
  EXPECT_EQ(z3.text,
            "process exited with status 114: ASSERTION VIOLATION; File: ./src/qe/mbp/mbp_arrays.cpp; Line: 477; "
            "UNEXPECTED CODE WAS REACHED.");
  // Another status is still a failure, even with the same message.
  const ForkServer::Reply other = server.Call(0, "z3 7", 10, nullptr);
  EXPECT_FALSE(other.ok);
  EXPECT_TRUE(other.failed);
  EXPECT_NE(other.text.find("status 7"), std::string::npos) << other.text;
  EXPECT_EQ(server.Call(0, "echo again", 10, nullptr).text, "again");
}

TEST(ForkServer, KillsAChildAtItsTimeLimit) {
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); });
  const ForkServer::Reply reply = server.Call(0, "sleep", 0.2, nullptr);
  EXPECT_FALSE(reply.ok);
  EXPECT_FALSE(reply.failed);
  EXPECT_NE(reply.text.find("time limit"), std::string::npos) << reply.text;
}

TEST(ForkServer, CancelsAChildWhenTheFlagIsSet) {
  ForkServer server(1, [](const std::string& r) { return Behave(r, ""); });
  std::atomic<bool> cancel{false};
  std::thread setter([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel = true;
  });
  const ForkServer::Reply reply = server.Call(0, "sleep", 600, &cancel);
  setter.join();
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.text, "cancelled");
}

TEST(ForkServer, ServesClientsConcurrently) {
  constexpr unsigned kClients = 4;
  ForkServer server(kClients, [](const std::string& r) { return Behave(r, ""); });
  std::vector<std::string> replies(kClients);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < kClients; ++i) {
    threads.emplace_back([&server, &replies, i] {
      for (int k = 0; k < 5; ++k) replies[i] += server.Call(i, "echo " + std::to_string(i), 10, nullptr).text;
    });
  }
  for (auto& t : threads) t.join();
  for (unsigned i = 0; i < kClients; ++i) EXPECT_EQ(replies[i], std::string(5, static_cast<char>('0' + i)));
}

}  // namespace
}  // namespace common
