// memplan arena: a CUDA allocator for torch.cuda.memory.CUDAPluggableAllocator that serves one training
// iteration from a single cudaMalloc'ed arena laid out by `memplan alloc`.
//
// The plan is the CSV that `memplan alloc` writes (id,lower,upper,size,...,offset) for a pattern that
// `memplan-torch import-snapshot` made (integer ids in allocation order), read from the file named by
// MEMPLAN_ARENA_PLAN. Rows sorted by (lower, id) are the iteration's allocations in order: after
// memplan_arena_begin_iteration(), allocation k of the iteration gets base + offset of row k when its size
// fits the planned size. Anything else (before the first begin, a request larger than planned, more
// requests than rows) falls back to cudaMalloc, and the iteration stops using the arena ("desync").
//
// The plan says when space is reused, but only for the pattern it was made from: an extra allocation in
// the middle of an iteration shifts every later request onto another row, whose planned space may still
// hold a live tensor. So the arena also tracks which of its blocks are live (handed out, not yet freed) and
// never hands out space that overlaps one: such a request desyncs too ("overlap"). Whatever the pattern
// does, no two live tensors share arena memory.
//
// A plan that cannot be read (unset, missing, a malformed row, an offset off the caching allocator's 512-byte
// alignment, which kernels' vector loads rely on) is reported on stderr once and every allocation falls back
// to cudaMalloc: the allocator runs inside PyTorch, where an exception would abort.
//
// scripts/gpu-run compiles it on the GPU machine; there (H200, torch 2.11, 2026-12-04) it served every planned
// request of 14 recorded training iterations, with the recorded losses (bench/torch/results/). tests/arena/
// tests its logic on the CPU, against a stand-in for the CUDA runtime backed by host memory.
#include <cuda_runtime_api.h>
#include <sys/types.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr long long kAlignment = 512;  // what the caching allocator gives every block

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
  std::map<long long, long long> live;  // offset -> end of each arena block handed out and not yet freed
  long long served = 0, fallback = 0, desyncs = 0, overlaps = 0;
  // Bytes in cudaMalloc'ed blocks now, and their most at once since the first planned iteration began: with
  // the arena's height, what the planned iterations held, persistent tensors included.
  long long fallback_live = 0, fallback_peak = 0;
  // The size of each cudaMalloc'ed block, by address: torch 2.5 to 2.8 may pass memplan_free another size
  // than the block's (pytorch/pytorch#153109), which would skew fallback_live.
  std::unordered_map<void*, long long> fallback_blocks;
  bool measuring = false;  // a planned iteration has begun
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
    if (r.offset % kAlignment != 0) {
      std::fprintf(stderr, "memplan arena: %s:%d: offset %lld is not a multiple of %lld; every allocation uses "
                   "cudaMalloc\n", path, line_number, r.offset, kAlignment);
      a.rows.clear();
      return false;
    }
    a.height = std::max(a.height, r.offset + r.size);
    if (r.size > 0) a.rows.push_back(r);  // empty requests take no row (memplan_malloc)
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

// Whether [begin, end) of the arena overlaps a live block. Live blocks never overlap one another, so only
// the nearest one on each side can.
bool OverlapsLive(const Arena& a, long long begin, long long end) {
  auto after = a.live.lower_bound(begin);
  if (after != a.live.end() && after->first < end) return true;
  return after != a.live.begin() && std::prev(after)->second > begin;
}

}  // namespace

extern "C" {

void* memplan_malloc(ssize_t size, int device, cudaStream_t stream) {
  (void)device;
  (void)stream;
  // As the caching allocator: an empty tensor gets no memory, and no row, so that the pattern stays that
  // of the snapshot the plan came from.
  if (size <= 0) return nullptr;
  Arena& a = arena();
  {
    std::lock_guard<std::mutex> lock(a.mu);
    if (Load(a) && a.active) {
      if (a.next < a.rows.size() && size <= a.rows[a.next].size) {
        const Row& row = a.rows[a.next];
        if (!OverlapsLive(a, row.offset, row.offset + row.size)) {
          ++a.next;
          ++a.served;
          a.live.emplace(row.offset, row.offset + row.size);
          return a.base + row.offset;
        }
        ++a.overlaps;
      }
      a.active = false;  // the pattern left the plan: the rest of this iteration uses cudaMalloc
      ++a.desyncs;
    }
    ++a.fallback;
  }
  void* p = nullptr;
  if (cudaMalloc(&p, static_cast<size_t>(size)) != cudaSuccess) {
    // PyTorch does not check a pluggable allocator's result: say here why a kernel is about to fail
    std::fprintf(stderr, "memplan arena: cudaMalloc of %lld bytes failed (out of memory?)\n",
                 static_cast<long long>(size));
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(a.mu);
  a.fallback_blocks[p] = size;
  a.fallback_live += size;
  if (a.measuring) a.fallback_peak = std::max(a.fallback_peak, a.fallback_live);
  return p;
}

// `size` is meant to be the size of the request that returned `ptr`; the arena's own records serve instead.
void memplan_free(void* ptr, ssize_t size, int device, cudaStream_t stream) {
  (void)size;
  (void)device;
  (void)stream;
  if (ptr == nullptr) return;
  Arena& a = arena();
  {
    std::lock_guard<std::mutex> lock(a.mu);
    char* c = static_cast<char*>(ptr);
    if (a.base && c >= a.base && c < a.base + a.height) {
      a.live.erase(c - a.base);
      return;
    }
    const auto block = a.fallback_blocks.find(ptr);
    if (block != a.fallback_blocks.end()) {
      a.fallback_live -= block->second;
      a.fallback_blocks.erase(block);
    }
  }
  cudaFree(ptr);
}

// Start of a planned iteration: the next allocation is row 0 of the plan.
void memplan_arena_begin_iteration() {
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mu);
  a.next = 0;
  a.active = true;
  if (!a.measuring) a.fallback_peak = a.fallback_live;
  a.measuring = true;
}

// Restarts the peak of cudaMalloc'ed bytes from what is held now. The first planned iteration frees what the
// warm-up left in cudaMalloc'ed blocks (its gradients, which the plan keeps in the arena from one iteration to
// the next), so a peak measured from there counts those bytes twice: measure from the second.
void memplan_arena_reset_peak() {
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mu);
  a.fallback_peak = a.fallback_live;
}

// served, fallback, desyncs, arena height, planned rows, overlaps (desyncs because the row's space was live),
// bytes in cudaMalloc'ed blocks now, and their peak since the first planned iteration began (or the last
// memplan_arena_reset_peak).
void memplan_arena_stats(long long* out) {
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mu);
  out[0] = a.served;
  out[1] = a.fallback;
  out[2] = a.desyncs;
  out[3] = a.height;
  out[4] = static_cast<long long>(a.rows.size());
  out[5] = a.overlaps;
  out[6] = a.fallback_live;
  out[7] = a.fallback_peak;
}

}  // extern "C"
