// memplan arena: a CUDA allocator for torch.cuda.memory.CUDAPluggableAllocator that serves one training
// iteration from a single cudaMalloc'ed arena laid out by `memplan alloc`.
//
// The plan is the CSV that `memplan alloc` writes (id,lower,upper,size,...,offset) for a pattern that
// `memplan-torch import-snapshot` made (integer ids in allocation order), read from the file named by
// MEMPLAN_ARENA_PLAN. Rows sorted by (lower, id) are the iteration's allocations in order: after
// memplan_arena_begin_iteration(), allocation k of the iteration gets base + offset of row k when its size
// fits the planned size. Anything else (before the first begin, a request larger than planned, more
// requests than rows) falls back to cudaMalloc, and the iteration stops using the arena ("desync"), so an
// unplanned pattern can never overlap planned buffers of the same iteration. Frees inside the arena are
// no-ops: the plan already says when the space is reused.
//
// A plan that cannot be read (unset, missing, a malformed row) is reported on stderr once and every
// allocation falls back to cudaMalloc: the allocator runs inside PyTorch, where an exception would abort.
//
// Not yet run on a GPU: scripts/gpu-run compiles it there. tests/arena/ tests its logic on the CPU, against
// a stand-in for the CUDA runtime backed by host memory.
#include <cuda_runtime_api.h>
#include <sys/types.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Row {
  long long lower = 0, id = 0, size = 0, offset = 0;
};

struct Arena {
  std::mutex mu;
  bool loaded = false;
  std::vector<Row> rows;
  char* base = nullptr;
  long long height = 0;
  size_t next = 0;       // index of the next planned allocation
  bool active = false;   // between begin_iteration and a desync
  long long served = 0, fallback = 0, desyncs = 0;
};

Arena& arena() {
  static Arena a;
  return a;
}

// Reads the plan once; returns false (and says why on stderr) when it cannot.
bool Load(Arena& a) {
  if (a.loaded) return a.base != nullptr;
  a.loaded = true;
  const char* path = std::getenv("MEMPLAN_ARENA_PLAN");
  if (!path) {
    std::fprintf(stderr, "memplan arena: MEMPLAN_ARENA_PLAN is not set; every allocation uses cudaMalloc\n");
    return false;
  }
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) {
    std::fprintf(stderr, "memplan arena: %s: empty or unreadable\n", path);
    return false;
  }
  std::vector<std::string> header;
  {
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) header.push_back(cell);
  }
  auto col = [&](const char* name) {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  };
  const int c_id = col("id"), c_lower = col("lower"), c_size = col("size"), c_offset = col("offset");
  if (c_id < 0 || c_lower < 0 || c_size < 0 || c_offset < 0) {
    std::fprintf(stderr, "memplan arena: %s: header needs id, lower, size and offset\n", path);
    return false;
  }
  for (int line_number = 2; std::getline(in, line); ++line_number) {
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    // The integer in column c of this row; false (and the reason on stderr) when there is none.
    const auto integer = [&](int c, const char* name, long long& out) {
      const std::string text = c < static_cast<int>(cells.size()) ? cells[c] : std::string();
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
      if (error == std::errc() && end == text.data() + text.size() && out >= 0) return true;
      std::fprintf(stderr, "memplan arena: %s:%d: %s '%s' is not a non-negative integer; every allocation uses cudaMalloc\n",
                   path, line_number, name, text.c_str());
      return false;
    };
    Row r;
    if (!integer(c_id, "id", r.id) || !integer(c_lower, "lower", r.lower) || !integer(c_size, "size", r.size) ||
        !integer(c_offset, "offset", r.offset)) {
      a.rows.clear();
      return false;
    }
    a.height = std::max(a.height, r.offset + r.size);
    a.rows.push_back(r);
  }
  if (a.rows.empty()) {
    std::fprintf(stderr, "memplan arena: %s: no allocation rows; every allocation uses cudaMalloc\n", path);
    return false;
  }
  std::sort(a.rows.begin(), a.rows.end(),
            [](const Row& x, const Row& y) { return x.lower != y.lower ? x.lower < y.lower : x.id < y.id; });
  void* p = nullptr;
  if (cudaMalloc(&p, static_cast<size_t>(a.height)) != cudaSuccess) {
    std::fprintf(stderr, "memplan arena: cudaMalloc of the %lld-byte arena failed\n", a.height);
    return false;
  }
  a.base = static_cast<char*>(p);
  return true;
}

}  // namespace

extern "C" {

void* memplan_malloc(ssize_t size, int device, cudaStream_t stream) {
  (void)device;
  (void)stream;
  Arena& a = arena();
  {
    std::lock_guard<std::mutex> lock(a.mu);
    if (Load(a) && a.active) {
      if (a.next < a.rows.size() && size <= a.rows[a.next].size) {
        ++a.served;
        return a.base + a.rows[a.next++].offset;
      }
      a.active = false;  // the pattern left the plan: the rest of this iteration uses cudaMalloc
      ++a.desyncs;
    }
    ++a.fallback;
  }
  void* p = nullptr;
  if (cudaMalloc(&p, static_cast<size_t>(size)) != cudaSuccess) return nullptr;
  return p;
}

void memplan_free(void* ptr, ssize_t size, int device, cudaStream_t stream) {
  (void)size;
  (void)device;
  (void)stream;
  Arena& a = arena();
  {
    std::lock_guard<std::mutex> lock(a.mu);
    char* c = static_cast<char*>(ptr);
    if (a.base && c >= a.base && c < a.base + a.height) return;
  }
  cudaFree(ptr);
}

// Start of a planned iteration: the next allocation is row 0 of the plan.
void memplan_arena_begin_iteration() {
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mu);
  a.next = 0;
  a.active = true;
}

// served, fallback, desyncs, arena height, planned rows.
void memplan_arena_stats(long long* out) {
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mu);
  out[0] = a.served;
  out[1] = a.fallback;
  out[2] = a.desyncs;
  out[3] = a.height;
  out[4] = static_cast<long long>(a.rows.size());
}

}  // extern "C"
