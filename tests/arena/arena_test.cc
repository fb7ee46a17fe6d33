// The planned-arena CUDA allocator (python/memplan_torch/arena/arena.cc), built against a host-memory
// stand-in for the CUDA runtime (cuda_runtime_api.h here): which request gets which planned offset, when
// the pattern leaves the plan, and what a malformed plan does. The allocator keeps one arena per process,
// loaded at its first call, so each plan runs in a process of its own (threadsafe death tests re-execute
// this binary).
#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cuda_runtime_api.h"

extern "C" {
void* memplan_malloc(ssize_t size, int device, cudaStream_t stream);
void memplan_free(void* ptr, ssize_t size, int device, cudaStream_t stream);
void memplan_arena_begin_iteration();
void memplan_arena_reset_peak();
void memplan_arena_stats(long long* out);
}

namespace {

// Writes `text` to a file in the test's temporary folder and points MEMPLAN_ARENA_PLAN at it.
void UsePlan(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::path(testing::TempDir()) / name;
  std::ofstream(path) << text;
  setenv("MEMPLAN_ARENA_PLAN", path.c_str(), 1);
}

struct Stats {
  long long served, fallback, desyncs, height, rows, overlaps, fallback_live, fallback_peak;
};

Stats ReadStats() {
  long long out[8];
  memplan_arena_stats(out);
  return {out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]};
}

// Ends the child process with status 1 and says which check failed, unless `ok`.
void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "check failed: %s\n", what);
    std::exit(1);
  }
}

void* Allocate(ssize_t size) { return memplan_malloc(size, 0, nullptr); }
// Frees `ptr`, which a request of `size` bytes returned (PyTorch passes that size).
void Free(void* ptr, ssize_t size) { memplan_free(ptr, size, 0, nullptr); }

// The run of ServesThePlanInOrderAndFallsBackOffIt, in a child process; exits 0 when every check passed.
void ServePlan() {
  // Rows out of order in the file; the allocator takes them by (lower, id). Row 2 reuses row 0's space.
  UsePlan("plan.csv",
          "id,lower,upper,size,offset\n"
          "2,2,4,100,0\n"
          "0,0,1,100,0\n"
          "1,1,3,50,512\n");
  const auto check = Check;
  void* before = Allocate(10);  // before the first iteration begins: cudaMalloc
  check(before != nullptr && ReadStats().fallback == 1 && ReadStats().height == 562, "fallback before begin");
  const int arena_and_before = host_cuda::mallocs;

  memplan_arena_begin_iteration();
  char* first = static_cast<char*>(Allocate(100));
  char* second = static_cast<char*>(Allocate(40));  // smaller than planned: served
  check(second == first + 512, "row 1 at offset 512");
  Free(first, 100);  // inside the arena: nothing to free
  check(host_cuda::frees == 0, "a free inside the arena is a no-op");
  char* third = static_cast<char*>(Allocate(100));
  check(third == first, "row 2 reuses offset 0");
  check(host_cuda::mallocs == arena_and_before, "planned requests use no cudaMalloc");

  void* extra = Allocate(8);  // more requests than rows: cudaMalloc, and the rest of the iteration too
  void* after = Allocate(1);
  check(extra != nullptr && after != nullptr && host_cuda::mallocs == arena_and_before + 2, "fallback past the plan");
  check(ReadStats().desyncs == 1, "one desync");

  Free(second, 40);  // the iteration's tensors die before the next one reuses their space
  Free(third, 100);
  memplan_arena_begin_iteration();
  char* again = static_cast<char*>(Allocate(100));
  check(again == first, "the next iteration starts at row 0 again");
  void* too_large = Allocate(51);  // row 1 planned 50 bytes
  check(too_large != nullptr && static_cast<char*>(too_large) != first + 512, "too large for its row");
  Free(too_large, 4096);  // torch 2.5 to 2.8 may pass another size: the block's own counts
  check(host_cuda::frees == 1, "a fallback pointer goes back to cudaFree");

  const Stats stats = ReadStats();
  check(stats.served == 4 && stats.fallback == 4 && stats.desyncs == 2 && stats.rows == 3, "stats");
  // cudaMalloc'ed bytes: 10 from before the first iteration, 8 + 1 past the plan, 51 too large (freed)
  check(stats.fallback_live == 19 && stats.fallback_peak == 70, "bytes held outside the arena");
  memplan_arena_reset_peak();  // the peak restarts from what is held now
  Free(before, 10);
  check(ReadStats().fallback_peak == 19 && ReadStats().fallback_live == 9, "the peak since the reset");
  Free(extra, 8);
  Free(after, 1);
  std::exit(0);
}

// The run of NeverHandsOutSpaceThatIsStillLive, in a child process; exits 0 when every check passed.
void RefuseLiveSpace() {
  // Row 1 reuses row 0's space, planned after row 0's free; a row of size 0 takes no request.
  UsePlan("reuse.csv",
          "id,lower,upper,size,offset\n"
          "0,0,1,100,0\n"
          "1,1,2,0,0\n"
          "2,1,3,100,0\n"
          "3,2,4,10,512\n");
  memplan_arena_begin_iteration();
  char* first = static_cast<char*>(Allocate(100));
  Check(Allocate(0) == nullptr, "an empty request gets no memory and no row");
  // The pattern left the plan: row 0's tensor is still live when row 2's request comes.
  char* second = static_cast<char*>(Allocate(100));
  Check(second != nullptr && second != first, "live space is not handed out again");
  Stats stats = ReadStats();
  Check(stats.served == 1 && stats.overlaps == 1 && stats.desyncs == 1 && stats.fallback == 1 && stats.rows == 3,
        "one overlap, one desync");
  Free(second, 100);
  Free(first, 100);

  memplan_arena_begin_iteration();  // as planned now: row 0 freed before row 2
  first = static_cast<char*>(Allocate(100));
  Free(first, 100);
  second = static_cast<char*>(Allocate(100));
  char* third = static_cast<char*>(Allocate(10));
  Check(second == first && third == first + 512, "a freed block's space is reused as planned");
  Free(nullptr, 0);
  stats = ReadStats();
  Check(stats.served == 4 && stats.overlaps == 1 && stats.desyncs == 1, "no overlap when the pattern follows the plan");

  // Next iteration while row 3's block is still live: rows 0 and 2 are free of it, row 3 is not.
  Free(second, 100);
  memplan_arena_begin_iteration();
  Free(Allocate(100), 100);
  void* again = Allocate(100);
  Check(again == first, "rows away from a live block are served");
  void* fallback = Allocate(10);
  Check(fallback != third && ReadStats().overlaps == 2, "a block live from the last iteration is kept");
  Free(fallback, 10);
  std::exit(0);
}

// With `plan` as the plan file, every request is served by cudaMalloc and the arena stays empty; exits 0.
void FallBackEntirely(const std::string& plan) {
  if (!plan.empty()) UsePlan("bad.csv", plan);
  memplan_arena_begin_iteration();
  void* p = Allocate(100);
  const Stats stats = ReadStats();
  const bool ok = p != nullptr && stats.served == 0 && stats.fallback == 1 && stats.rows == 0 && host_cuda::mallocs == 1;
  Free(p, 100);
  std::exit(ok ? 0 : 1);
}

class Arena : public testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(Arena, ServesThePlanInOrderAndFallsBackOffIt) {
  EXPECT_EXIT(ServePlan(), testing::ExitedWithCode(0), "");
}

TEST_F(Arena, NeverHandsOutSpaceThatIsStillLive) {
  EXPECT_EXIT(RefuseLiveSpace(), testing::ExitedWithCode(0), "");
}

// The run of AFailedCudaMallocIsReported, in a child process: the request gets nullptr, as PyTorch expects.
void FailToAllocate() {
  UsePlan("plan.csv", "id,lower,upper,size,offset\n0,0,1,100,0\n");
  Check(Allocate(ssize_t{1} << 62) == nullptr, "no memory for an impossible request");
  const Stats stats = ReadStats();
  Check(stats.fallback == 1 && stats.fallback_live == 0, "nothing held");
  std::exit(0);
}

TEST_F(Arena, AFailedCudaMallocIsReported) {
  EXPECT_EXIT(FailToAllocate(), testing::ExitedWithCode(0), "cudaMalloc of 4611686018427387904 bytes failed");
}

TEST_F(Arena, MalformedPlansFallBackToCudaMallocWithTheReason) {
  EXPECT_EXIT(FallBackEntirely("id,lower,upper,size,offset\n0,0,1,100,0\n1,1,2,x,100\n"),
              testing::ExitedWithCode(0), "bad.csv:3: size 'x' is not a non-negative integer");
  EXPECT_EXIT(FallBackEntirely("id,lower,upper,size,offset\n0,0,1,100\n"), testing::ExitedWithCode(0),
              "bad.csv:2: offset '' is not a non-negative integer");
  EXPECT_EXIT(FallBackEntirely("id,lower,size\n0,0,100\n"), testing::ExitedWithCode(0),
              "header needs id, lower, size and offset");
  EXPECT_EXIT(FallBackEntirely("id,lower,upper,size,offset\n"), testing::ExitedWithCode(0), "no allocation rows");
  EXPECT_EXIT(FallBackEntirely("id,lower,upper,size,offset\n0,0,1,100,0\n1,1,2,100,100\n"),
              testing::ExitedWithCode(0), "bad.csv:3: offset 100 is not a multiple of 512");
  EXPECT_EXIT(
      {
        unsetenv("MEMPLAN_ARENA_PLAN");
        FallBackEntirely("");
      },
      testing::ExitedWithCode(0), "MEMPLAN_ARENA_PLAN is not set");
}

}  // namespace
