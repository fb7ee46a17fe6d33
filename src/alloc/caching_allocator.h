// A simulation of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp) replaying an
// allocation pattern, to measure the memory a user of PyTorch reserves for it today. What it models and
// what it leaves out: docs/caching_allocator.md.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "alloc/caching_replay.h"
#include "alloc/problem.h"

namespace alloc {

// The allocator's settings: the PYTORCH_CUDA_ALLOC_CONF options that change where memory goes, plus the
// device it runs on.
struct CachingAllocatorConfig {
  static constexpr Bytes kNoLimit = std::numeric_limits<Bytes>::max();

  Bytes max_split_size = kNoLimit;               // max_split_size_mb, in bytes
  Bytes max_non_split_rounding = 20 << 20;       // max_non_split_rounding_mb, in bytes
  double garbage_collection_threshold = 0;       // 0: off; acts only with memory_fraction set
  bool expandable_segments = false;
  // roundup_power2_divisions per power-of-two interval: [0] for sizes below 2 MiB, [i] for
  // [2^(20+i), 2^(21+i)), [15] for 32 GiB and above; 0 or 1: plain 512-byte rounding.
  std::array<int64_t, 16> roundup_power2_divisions{};
  Bytes device_memory = 0;     // physical memory of the device; 0: unlimited
  double memory_fraction = 0;  // torch.cuda.set_per_process_memory_fraction; 0: not set

  // Parses a PYTORCH_CUDA_ALLOC_CONF string ("max_split_size_mb:128,expandable_segments:True").
  // Options that do not change placement (release_lock_on_cudamalloc, pinned_*) are accepted and
  // ignored. Throws common::InputError("source: key: what is wrong") for an unknown key, a malformed
  // value or backend:cudaMallocAsync (a different allocator, not modelled).
  static CachingAllocatorConfig Parse(std::string_view conf, const std::string& source = "PYTORCH_CUDA_ALLOC_CONF");
};

// What the allocator did with the pattern. For a periodic pattern (Problem::period > 0) two iterations
// are replayed from an empty cache and the peaks are those of the second one (the steady state).
struct CachingAllocatorResult {
  Bytes lower_bound = 0;      // peak load of the pattern (alloc::PeakLoad)
  Bytes peak_reserved = 0;    // max of the memory held from the device (sum of segments / mapped pages)
  Bytes peak_allocated = 0;   // max of the bytes in blocks handed out (rounded; unsplit blocks count whole)
  Bytes peak_requested = 0;   // max of the bytes the program asked for (before rounding)
  int64_t segments_allocated = 0;  // cudaMalloc calls (page mappings with expandable segments), all iterations
  int64_t segments_released = 0;   // cudaFree calls (unmappings) by the free-and-retry path or garbage collection
  int64_t alloc_retries = 0;       // allocations that needed every unused cached segment released
  int iterations = 1;              // iterations replayed (2 for a periodic pattern)
  bool out_of_memory = false;      // the replay stopped at an allocation the device could not hold
  std::string oom_buffer;          // the id of that buffer

  // peak_reserved / LB - 1 (0 when LB is 0). Meaningless after out_of_memory: the peaks are partial.
  double Fragmentation() const;
  // (peak_reserved - LB) / peak_reserved: the share of reserved memory never needed at once (0 when empty).
  double WastedShare() const;
};

// Replays `problem` through the caching allocator: each buffer is allocated at `lower` and freed at
// `upper`; at equal times frees come first, then allocations in input order. One stream, no CUDA graphs.
CachingAllocatorResult SimulateCachingAllocator(const Problem& problem, const CachingAllocatorConfig& config);

// What the model did with a recording of the real allocator (caching_replay.h), against what it did.
struct CachingReplayResult {
  // The first allocation the model placed elsewhere than the real allocator: its event, its requested size,
  // and the two addresses.
  struct Mismatch {
    size_t event = 0;
    Bytes size = 0;
    Bytes real_address = 0;
    Bytes model_address = 0;
  };
  int64_t allocations = 0;      // alloc events replayed
  int64_t at_real_address = 0;  // of them, the ones the model placed where the real allocator did
  std::optional<Mismatch> first_mismatch;
  int64_t real_segments_allocated = 0, real_segments_released = 0;    // segment events of the recording
  int64_t model_segments_allocated = 0, model_segments_released = 0;  // the model's, during the replay
  Bytes real_peak_reserved = 0;   // the recording's segments at their most, the ones of its start included
  Bytes model_peak_reserved = 0;  // the model's
  int64_t unknown_frees = 0;      // frees of an address the replay did not hand out (a recording that lost events)
  bool out_of_memory = false;     // the model ran out of device memory (a device_memory limit) and stopped
};

// Replays the recording from its start state, each alloc of the requested size through the model, each free
// of the block that serves the real address. The model's new segments take the real allocator's next
// segment's address when it took one for the same alloc, so ties of best fit by address go as they went.
// Throws std::invalid_argument for expandable segments (not modelled here).
CachingReplayResult ReplayCachingAllocator(const CachingReplay& replay, const CachingAllocatorConfig& config);

// The size the allocator hands out for a request of `size` bytes (512-byte or power-of-two-division
// rounding), exposed for tests.
Bytes RoundAllocationSize(Bytes size, const CachingAllocatorConfig& config);

}  // namespace alloc
