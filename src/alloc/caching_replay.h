// A recording of PyTorch's real caching allocator, to replay through memplan's model of it
// (ReplayCachingAllocator in caching_allocator.h) and compare every placement: `memplan-torch
// import-snapshot --replay R.json` writes it from a CUDA memory snapshot (format caching-replay/v1).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloc/problem.h"

namespace alloc {

// The allocator's state when the recording began, then what happened, with the real device addresses.
struct CachingReplay {
  // A segment (one cudaMalloc) and the blocks handed out in it when the recording began.
  struct Segment {
    Bytes address = 0;
    Bytes size = 0;
    bool small = false;                            // of the small pool (blocks of 1 MiB or less)
    std::vector<std::pair<Bytes, Bytes>> live;     // (address, size), sorted by address
  };
  enum class Action { kAlloc, kFree, kSegmentAlloc, kSegmentFree };
  // One event of the recording: an alloc of `size` requested bytes placed at `address`, a free of the block
  // at `address`, or a segment of `size` bytes at `address` taken from or given back to the device.
  struct Event {
    Action action = Action::kAlloc;
    Bytes address = 0;
    Bytes size = 0;
  };

  std::string conf;  // the recording's PYTORCH_CUDA_ALLOC_CONF
  std::vector<Segment> segments;
  std::vector<Event> events;
};

// Parses a caching-replay/v1 text, read from `file`. Throws common::InputError("file: what") when it is not
// JSON, not that format, or a field is missing or out of range (a live block outside its segment, a negative
// size, addresses or sizes, or the sum of all sizes, beyond 2^62 bytes).
CachingReplay ParseCachingReplay(const std::string& file, std::string_view text);

// Reads and parses a caching-replay/v1 file.
CachingReplay ReadCachingReplay(const std::string& path);

}  // namespace alloc
