#include "alloc/caching_allocator.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/error.h"

namespace alloc {
namespace {

// PyTorch's constants (CUDACachingAllocator.cpp).
constexpr Bytes kMiB = Bytes{1} << 20;
constexpr Bytes kMinBlockSize = 512;       // every size is rounded to a multiple of this
constexpr Bytes kSmallSize = kMiB;         // largest request served by the small pool
constexpr Bytes kSmallBuffer = 2 * kMiB;   // segment (and expandable page) of the small pool
constexpr Bytes kLargeBuffer = 20 * kMiB;  // segment for requests below kMinLargeAlloc; large-pool page
constexpr Bytes kMinLargeAlloc = 10 * kMiB;
constexpr Bytes kRoundLarge = 2 * kMiB;    // larger segments are rounded up to this
// Address space an expandable segment reserves when the device memory is not given (64 TiB).
constexpr Bytes kUnlimitedAddressSpace = Bytes{1} << 46;

// ---------------------------------------------------------------------------------------------------
// PYTORCH_CUDA_ALLOC_CONF parsing, following AllocatorConfig::lexArgs / parseArgs.

// Reads the tokens of one conf string; every error names the key it belongs to.
class ConfReader {
 public:
  ConfReader(std::string_view conf, const std::string& source) : source_(source) {
    // Like PyTorch's lexer: ',', ':', '[' and ']' are tokens of their own and spaces vanish.
    std::string word;
    for (char c : conf) {
      if (c == ',' || c == ':' || c == '[' || c == ']') {
        if (!word.empty()) tokens_.push_back(std::move(word));
        word.clear();
        tokens_.emplace_back(1, c);
      } else if (c != ' ') {
        word.push_back(c);
      }
    }
    if (!word.empty()) tokens_.push_back(std::move(word));
  }

  bool Done() const { return i_ >= tokens_.size(); }
  const std::string& Next(const std::string& key) {
    if (Done()) Fail(key, "a value is missing at the end");
    return tokens_[i_++];
  }
  // The next token without consuming it, or "" at the end.
  std::string_view Peek() const { return Done() ? std::string_view() : std::string_view(tokens_[i_]); }
  void Expect(const std::string& key, char c) {
    const std::string& token = Next(key);
    if (token != std::string(1, c)) Fail(key, fmt::format("expected '{}' but found '{}'", c, token));
  }
  int64_t Integer(const std::string& key) {
    const std::string& token = Next(key);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size() || value < 0) {
      Fail(key, fmt::format("expected a non-negative integer, found '{}'", token));
    }
    return value;
  }
  double Real(const std::string& key) {
    const std::string& token = Next(key);
    double value = 0;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size()) {
      Fail(key, fmt::format("expected a number, found '{}'", token));
    }
    return value;
  }
  bool Boolean(const std::string& key) {
    const std::string& token = Next(key);
    if (token != "True" && token != "False") Fail(key, fmt::format("expected True or False, found '{}'", token));
    return token == "True";
  }
  [[noreturn]] void Fail(const std::string& key, const std::string& what) const {
    common::FailAt(source_, 0, fmt::format("{}: {}", key, what));
  }

 private:
  std::vector<std::string> tokens_;
  size_t i_ = 0;
  const std::string& source_;
};

// The PYTORCH_CUDA_ALLOC_CONF options of the native CUDA allocator.
constexpr std::array<std::string_view, 10> kOptions = {
    "max_split_size_mb",          "max_non_split_rounding_mb",     "garbage_collection_threshold",
    "roundup_power2_divisions",   "expandable_segments",           "backend",
    "release_lock_on_cudamalloc", "pinned_use_cuda_host_register", "pinned_use_background_threads",
    "pinned_num_register_threads"};

// Reads a size option given in MiB that PyTorch requires to be at least 20 MiB.
Bytes ReadMebibytesAtLeast20(ConfReader& reader, const std::string& key) {
  const int64_t mb = reader.Integer(key);
  if (mb < kLargeBuffer / kMiB) reader.Fail(key, fmt::format("must be >= {}, found {}", kLargeBuffer / kMiB, mb));
  if (mb > CachingAllocatorConfig::kNoLimit / kMiB) return CachingAllocatorConfig::kNoLimit;
  return mb * kMiB;
}

// Reads roundup_power2_divisions: one power of two for every size, or a list
// "[MB:divisions,...,>:divisions]" with interval starts in MiB (AllocatorConfig::parseRoundUpPower2Divisions).
void ReadRoundupDivisions(ConfReader& reader, const std::string& key, std::array<int64_t, 16>& divisions) {
  if (reader.Peek() != "[") {
    const int64_t value = reader.Integer(key);
    if (!std::has_single_bit(static_cast<uint64_t>(value))) {
      reader.Fail(key, fmt::format("the divisions must be a power of 2, found {}", value));
    }
    divisions.fill(value);
    return;
  }
  reader.Next(key);
  size_t last_index = 0;
  bool first = true;
  while (reader.Peek() != "]") {
    const std::string interval = reader.Next(key);
    reader.Expect(key, ':');
    const int64_t value = reader.Integer(key);
    if (value != 0 && !std::has_single_bit(static_cast<uint64_t>(value))) {
      reader.Fail(key, fmt::format("the divisions must be a power of 2 or 0, found {}", value));
    }
    if (interval == ">") {
      // As in PyTorch, '>' also overwrites the last interval named before it.
      std::fill(divisions.begin() + static_cast<ptrdiff_t>(last_index), divisions.end(), value);
    } else {
      uint64_t start = 0;
      auto [end, ec] = std::from_chars(interval.data(), interval.data() + interval.size(), start);
      if (ec != std::errc() || end != interval.data() + interval.size() || !std::has_single_bit(start)) {
        reader.Fail(key, fmt::format("interval starts must be powers of 2 (in MiB) or '>', found '{}'", interval));
      }
      const size_t index = std::min<size_t>(static_cast<size_t>(std::bit_width(start) - 1), divisions.size() - 1);
      if (first) std::fill(divisions.begin(), divisions.begin() + static_cast<ptrdiff_t>(index), value);
      first = false;
      divisions[index] = value;
      last_index = index;
    }
    if (reader.Peek() != "]") reader.Expect(key, ',');
  }
  reader.Next(key);  // the closing ']'
}

// ---------------------------------------------------------------------------------------------------
// The allocator itself: DeviceCachingAllocator restricted to one device and one stream.

// A range of device memory: handed out, cached free, or (expandable segments) not backed by pages.
struct Block {
  Bytes addr = 0;
  Bytes size = 0;
  int prev = -1;      // neighbours inside the same segment (-1: none)
  int next = -1;
  int segment = -1;   // the expandable segment it lies in, -1 for a cudaMalloc segment
  bool small = false;
  bool allocated = false;
  bool mapped = true;
  bool dead = false;  // merged into a neighbour or released; its slot is never reused
  int64_t gc_base = 0;  // the pool's lookup count when it was cached (garbage-collection age)
  Bytes requested = 0;  // the request it serves while allocated
};

// Free blocks ordered by (size, address): best fit is the first one not smaller than the request.
using FreeKey = std::tuple<Bytes, Bytes, int>;

// One pool (small or large) of cached free blocks, and of unmapped ranges of expandable segments.
struct Pool {
  bool small = false;
  std::set<FreeKey> blocks;
  std::set<std::pair<Bytes, int>> unmapped;  // by address
  int64_t lookups = 0;                       // get_free_blocks_call_count
};

// The segment sizes PyTorch reserves for a rounded request (get_allocation_size).
Bytes SegmentSize(Bytes size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return AlignUp(size, kRoundLarge);
}

// Replays mallocs and frees with PyTorch's rules and keeps its statistics.
class Allocator {
 public:
  explicit Allocator(const CachingAllocatorConfig& config) : config_(config) {
    small_.small = true;
    if (config.memory_fraction > 0) {
      allowed_ = static_cast<Bytes>(config.memory_fraction * static_cast<double>(config.device_memory));
    }
  }

  // Allocates `requested` bytes; returns the block, or -1 when the device is out of memory.
  int Malloc(Bytes requested) {
    const Bytes size = RoundAllocationSize(requested, config_);
    Pool& pool = size <= kSmallSize ? small_ : large_;
    int block = GetFreeBlock(pool, size);
    if (block < 0) {
      if (GarbageCollectionOn()) GarbageCollect();
      const Bytes segment = SegmentSize(size);
      block = AllocBlock(pool, size, segment);
      if (block < 0 && ReleaseAvailableCachedBlocks(pool, size)) block = AllocBlock(pool, size, segment);
      if (block < 0) {
        ReleaseCachedBlocks();
        ++alloc_retries;
        block = AllocBlock(pool, size, segment);
      }
      if (block < 0) return -1;
    }
    return AllocFoundBlock(pool, block, size, requested);
  }

  // Returns a block to its pool, merging it with free neighbours of the same segment.
  void Free(int index) {
    Block& b = blocks_[index];
    b.allocated = false;
    allocated -= b.size;
    requested -= b.requested;
    Pool& pool = PoolOf(b);
    TryMerge(index, b.prev, pool);
    TryMerge(index, blocks_[index].next, pool);
    Insert(pool, index);
  }

  // A segment that exists when a replay begins, at its recorded address: the `live` blocks (address, size,
  // sorted) handed out, the rest of it cached free. Returns the live blocks' indices, in their order.
  std::vector<int> AddSegment(Bytes addr, Bytes size, bool small, const std::vector<std::pair<Bytes, Bytes>>& live) {
    Pool& pool = small ? small_ : large_;
    reserved += size;
    std::vector<int> indices;
    int prev = -1;
    const auto add = [&](Bytes at, Bytes length, bool taken) {
      Block b;
      b.addr = at;
      b.size = length;
      b.small = small;
      b.prev = prev;
      b.allocated = taken;
      b.requested = taken ? length : 0;
      const int index = NewBlock(b);
      if (prev >= 0) blocks_[prev].next = index;
      prev = index;
      if (taken) {
        allocated += length;
        requested += length;
      } else {
        Insert(pool, index);
      }
      return index;
    };
    Bytes at = addr;
    for (const auto& [block, length] : live) {
      if (block > at) add(at, block - at, false);
      indices.push_back(add(block, length, true));
      at = block + length;
    }
    if (at < addr + size) add(at, addr + size - at, false);
    next_address_ = std::max(next_address_, addr + size);  // the model's own segments lie above the recorded ones
    return indices;
  }

  // The address of block `index`.
  Bytes AddressOf(int index) const { return blocks_[index].addr; }

  // Where the next segment the model takes goes: the address of the real allocator's segment in a replay
  // (nullopt: a fresh range, above all others).
  void PlaceNextSegmentAt(std::optional<Bytes> addr) { next_segment_ = addr; }

  Bytes reserved = 0;   // total_allocated_memory
  Bytes allocated = 0;  // bytes in blocks handed out
  Bytes requested = 0;  // bytes asked for by live allocations
  int64_t segments_allocated = 0;
  int64_t segments_released = 0;
  int64_t alloc_retries = 0;

 private:
  // An expandable segment: a reserved address range whose pages are mapped on demand.
  struct ExpandableSegment {
    Bytes base = 0;
    Bytes page = 0;
  };

  Pool& PoolOf(const Block& b) { return b.small ? small_ : large_; }
  bool GarbageCollectionOn() const { return allowed_ > 0 && config_.garbage_collection_threshold > 0; }

  // A fresh range of virtual addresses. Ranges are never reused and grow with creation order, so ties
  // between equal free blocks go to the older segment (a model of cudaMalloc's addresses; see the docs).
  Bytes NewAddressRange(Bytes size) {
    if (next_segment_) {
      const Bytes addr = *next_segment_;
      next_segment_.reset();
      return addr;
    }
    const Bytes addr = next_address_;
    next_address_ += size;
    return addr;
  }

  int NewBlock(Block b) {
    blocks_.push_back(b);
    return static_cast<int>(blocks_.size()) - 1;
  }
  static FreeKey KeyOf(const Block& b, int index) { return {b.size, b.addr, index}; }
  // insert_into_blocks: caches a free mapped block and starts its garbage-collection age.
  void Insert(Pool& pool, int index) {
    blocks_[index].gc_base = pool.lookups;
    pool.blocks.insert(KeyOf(blocks_[index], index));
  }
  void Erase(Pool& pool, int index) { pool.blocks.erase(KeyOf(blocks_[index], index)); }
  bool IsSplit(const Block& b) const { return b.prev >= 0 || b.next >= 0; }
  // Size a free expandable block could grow to by mapping the unmapped range after it.
  Bytes ExpandableSize(const Block& b) const {
    return b.size + (b.next >= 0 && !blocks_[b.next].mapped ? blocks_[b.next].size : 0);
  }

  // get_free_block: best fit among cached blocks, with the max_split_size restrictions.
  int GetFreeBlock(Pool& pool, Bytes size) {
    if (GarbageCollectionOn()) ++pool.lookups;
    auto it = pool.blocks.lower_bound({size, 0, -1});
    if (it == pool.blocks.end()) return -1;
    if (config_.expandable_segments) {
      // A block followed by unmapped pages counts at the size it can grow to, so that best fit keeps
      // the growing end of a segment for requests that need it.
      for (auto next = std::next(it);
           next != pool.blocks.end() && ExpandableSize(blocks_[std::get<2>(*next)]) < ExpandableSize(blocks_[std::get<2>(*it)]);
           ++next) {
        it = next;
      }
    }
    const int index = std::get<2>(*it);
    const Bytes found = blocks_[index].size;
    if (size < config_.max_split_size && found >= config_.max_split_size) return -1;
    if (size >= config_.max_split_size && found >= size + config_.max_non_split_rounding) return -1;
    pool.blocks.erase(it);
    return index;
  }

  // should_split: whether the rest of a block found for `size` stays behind as a free block.
  bool ShouldSplit(const Block& b, Bytes size) const {
    const Bytes remaining = b.size - size;
    if (b.small || config_.expandable_segments) return remaining >= kMinBlockSize;
    return size < config_.max_split_size && remaining > kSmallSize;
  }

  int AllocFoundBlock(Pool& pool, int index, Bytes size, Bytes request) {
    if (ShouldSplit(blocks_[index], size)) {
      Block rest = blocks_[index];
      rest.addr += size;
      rest.size -= size;
      rest.prev = index;
      const int rest_index = NewBlock(rest);
      Block& b = blocks_[index];
      if (b.next >= 0) blocks_[b.next].prev = rest_index;
      b.next = rest_index;
      b.size = size;
      Insert(pool, rest_index);
    }
    Block& b = blocks_[index];
    b.allocated = true;
    b.requested = request;
    allocated += b.size;
    requested += request;
    return index;
  }

  // try_merge_blocks: absorbs the free neighbour `src` into `dst` when both are mapped alike.
  void TryMerge(int dst, int src, Pool& pool) {
    if (src < 0) return;
    Block& s = blocks_[src];
    Block& d = blocks_[dst];
    if (s.allocated || s.mapped != d.mapped) return;
    if (s.mapped) {
      Erase(pool, src);
    } else {
      pool.unmapped.erase({s.addr, src});
    }
    if (d.prev == src) {
      d.addr = s.addr;
      d.prev = s.prev;
      if (d.prev >= 0) blocks_[d.prev].next = dst;
    } else {
      d.next = s.next;
      if (d.next >= 0) blocks_[d.next].prev = dst;
    }
    d.size += s.size;
    s.dead = true;
  }

  // alloc_block: a new segment from the device (or pages of an expandable segment).
  int AllocBlock(Pool& pool, Bytes size, Bytes segment_size) {
    if (allowed_ > 0 && reserved + segment_size > allowed_) return -1;
    if (config_.expandable_segments) return AllocExpandable(pool, size);
    if (config_.device_memory > 0 && reserved + segment_size > config_.device_memory) return -1;
    Block b;
    b.addr = NewAddressRange(segment_size);
    b.size = segment_size;
    b.small = pool.small;
    reserved += segment_size;
    ++segments_allocated;
    return NewBlock(b);
  }

  // release_block: cudaFree of a whole cached segment.
  void ReleaseBlock(Pool& pool, int index) {
    Erase(pool, index);
    reserved -= blocks_[index].size;
    blocks_[index].dead = true;
    ++segments_released;
  }

  // release_available_cached_blocks: with max_split_size set, frees the smallest cached oversize block
  // that covers the request, else oversize blocks from the largest down until enough is freed.
  bool ReleaseAvailableCachedBlocks(Pool& pool, Bytes size) {
    // PyTorch would assert here on an expandable block; with expandable segments nothing is released.
    if (config_.max_split_size == CachingAllocatorConfig::kNoLimit || config_.expandable_segments) return false;
    const Bytes key = std::max(size, config_.max_split_size);
    auto it = pool.blocks.lower_bound({key, 0, -1});
    if (it != pool.blocks.end()) {
      ReleaseBlock(pool, std::get<2>(*it));
      return true;
    }
    Bytes released = 0;
    while (released < key && !pool.blocks.empty()) {
      const FreeKey largest = *pool.blocks.rbegin();
      if (std::get<0>(largest) < config_.max_split_size) break;
      released += std::get<0>(largest);
      ReleaseBlock(pool, std::get<2>(largest));
    }
    return released >= key;
  }

  // release_cached_blocks: frees every cached block that is a whole segment (unmaps free pages of
  // expandable segments), large pool first.
  void ReleaseCachedBlocks() {
    for (Pool* pool : {&large_, &small_}) {
      std::vector<int> to_unmap;
      std::vector<int> whole;
      for (const FreeKey& key : pool->blocks) {
        const int index = std::get<2>(key);
        if (blocks_[index].segment >= 0) {
          to_unmap.push_back(index);
        } else if (!IsSplit(blocks_[index])) {
          whole.push_back(index);
        }
      }
      for (int index : whole) ReleaseBlock(*pool, index);
      for (int index : to_unmap) {
        Unmap(*pool, index);
        const Block& b = blocks_[index];
        // A fully unmapped segment gives its address range back (release_expandable_segment).
        if (!b.mapped && b.prev < 0 && b.next < 0) {
          pool->unmapped.erase({b.addr, index});
          blocks_[index].dead = true;
        }
      }
    }
  }

  // garbage_collect_cached_blocks: above threshold x allowed memory, frees whole cached large blocks
  // whose age (lookups since they were cached) is at least the average, until enough is reclaimed.
  void GarbageCollect() {
    const auto threshold = static_cast<Bytes>(config_.garbage_collection_threshold * static_cast<double>(allowed_));
    if (reserved <= threshold) return;
    const Bytes target = reserved - threshold;
    int64_t total_age = 0;
    int64_t freeable = 0;
    for (const FreeKey& key : large_.blocks) {
      const Block& b = blocks_[std::get<2>(key)];
      if (!IsSplit(b)) {
        total_age += large_.lookups - b.gc_base;
        ++freeable;
      }
    }
    Bytes reclaimed = 0;
    bool freed = true;
    while (reclaimed < target && freed && freeable > 0) {
      const double age_threshold = static_cast<double>(total_age) / static_cast<double>(freeable);
      freed = false;
      std::vector<int> victims;
      for (const FreeKey& key : large_.blocks) {
        const Block& b = blocks_[std::get<2>(key)];
        const int64_t age = large_.lookups - b.gc_base;
        if (!IsSplit(b) && static_cast<double>(age) >= age_threshold) {
          victims.push_back(std::get<2>(key));
          total_age -= age;
          --freeable;
        }
      }
      for (int index : victims) {
        freed = true;
        reclaimed += blocks_[index].size;
        ReleaseBlock(large_, index);
      }
    }
  }

  // ---- expandable segments (try_allocate_expandable_block and its helpers) ----

  // find_expandable_block: the lowest free-or-unmapped run with room for `size`, else a new segment.
  int FindExpandableBlock(Pool& pool, Bytes size) {
    for (const auto& [addr, unmapped_index] : pool.unmapped) {
      int candidate = unmapped_index;
      const int prev = blocks_[candidate].prev;
      if (prev >= 0 && !blocks_[prev].allocated) candidate = prev;
      Bytes room = 0;
      for (int b = candidate; b >= 0 && room < size && !blocks_[b].allocated; b = blocks_[b].next) {
        room += blocks_[b].size;
      }
      if (room >= size) return candidate;
    }
    ExpandableSegment segment;
    segment.page = pool.small ? kSmallBuffer : kLargeBuffer;
    // PyTorch reserves address space for 9/8 of the device's memory.
    const Bytes space = AlignUp(
        config_.device_memory > 0 ? config_.device_memory + config_.device_memory / 8 : kUnlimitedAddressSpace,
        segment.page);
    segment.base = NewAddressRange(space);
    segments_.push_back(segment);
    Block b;
    b.addr = segment.base;
    b.size = space;
    b.segment = static_cast<int>(segments_.size()) - 1;
    b.small = pool.small;
    b.mapped = false;
    const int index = NewBlock(b);
    pool.unmapped.insert({b.addr, index});
    return index;
  }

  // map_block: backs the first `size` bytes of an unmapped block with pages; false when the device
  // cannot hold them.
  bool MapBlock(Pool& pool, int index, Bytes size) {
    const ExpandableSegment& segment = segments_[static_cast<size_t>(blocks_[index].segment)];
    const Bytes mapped = AlignUp(size, segment.page);
    if (config_.device_memory > 0 && reserved + mapped > config_.device_memory) return false;
    pool.unmapped.erase({blocks_[index].addr, index});
    blocks_[index].mapped = true;
    if (mapped < blocks_[index].size) {
      Block rest = blocks_[index];
      rest.addr += mapped;
      rest.size -= mapped;
      rest.mapped = false;
      rest.prev = index;
      const int rest_index = NewBlock(rest);
      if (rest.next >= 0) blocks_[rest.next].prev = rest_index;
      blocks_[index].next = rest_index;
      blocks_[index].size = mapped;
      pool.unmapped.insert({rest.addr, rest_index});
    }
    TryMerge(index, blocks_[index].prev, pool);
    TryMerge(index, blocks_[index].next, pool);
    Insert(pool, index);
    reserved += mapped;
    ++segments_allocated;
    return true;
  }

  int AllocExpandable(Pool& pool, Bytes size) {
    int candidate = FindExpandableBlock(pool, size);
    if (!blocks_[candidate].mapped && !MapBlock(pool, candidate, std::min(blocks_[candidate].size, size))) return -1;
    while (blocks_[candidate].size < size) {
      // The candidate is free and mapped, followed by unmapped pages: map what is missing.
      const int next = blocks_[candidate].next;
      if (!MapBlock(pool, next, std::min(size - blocks_[candidate].size, blocks_[next].size))) return -1;
      candidate = next;
    }
    Erase(pool, candidate);
    return candidate;
  }

  // unmap_block: gives back the whole pages inside a cached expandable block.
  void Unmap(Pool& pool, int index) {
    const Block b = blocks_[index];
    const ExpandableSegment& segment = segments_[static_cast<size_t>(b.segment)];
    const Bytes begin = segment.base + AlignUp(b.addr - segment.base, segment.page);
    const Bytes end = segment.base + (b.addr + b.size - segment.base) / segment.page * segment.page;
    if (begin >= end) return;
    Erase(pool, index);
    if (begin > b.addr) {
      Block before = b;
      before.size = begin - b.addr;
      before.next = index;
      const int before_index = NewBlock(before);
      if (b.prev >= 0) blocks_[b.prev].next = before_index;
      blocks_[index].prev = before_index;
      Insert(pool, before_index);
    }
    if (end < b.addr + b.size) {
      Block after = b;
      after.addr = end;
      after.size = b.addr + b.size - end;
      after.prev = index;
      const int after_index = NewBlock(after);
      if (b.next >= 0) blocks_[b.next].prev = after_index;
      blocks_[index].next = after_index;
      Insert(pool, after_index);
    }
    blocks_[index].addr = begin;
    blocks_[index].size = end - begin;
    blocks_[index].mapped = false;
    TryMerge(index, blocks_[index].prev, pool);
    TryMerge(index, blocks_[index].next, pool);
    pool.unmapped.insert({blocks_[index].addr, index});
    reserved -= end - begin;
    ++segments_released;
  }

  const CachingAllocatorConfig& config_;
  Bytes allowed_ = 0;  // allowed_memory_maximum when a memory fraction is set, else 0
  Pool small_;
  Pool large_;
  std::vector<Block> blocks_;
  std::vector<ExpandableSegment> segments_;
  Bytes next_address_ = kSmallBuffer;  // nonzero: address 0 is the search key's
  std::optional<Bytes> next_segment_;  // PlaceNextSegmentAt
};

// One malloc or free of the replay.
struct Event {
  TimeValue time = 0;
  bool alloc = false;
  size_t buffer = 0;
  int copy = 0;  // the iteration it belongs to
};

}  // namespace

CachingAllocatorConfig CachingAllocatorConfig::Parse(std::string_view conf, const std::string& source) {
  CachingAllocatorConfig config;
  ConfReader reader(conf, source);
  while (!reader.Done()) {
    const std::string key = reader.Next("PYTORCH_CUDA_ALLOC_CONF");
    if (std::find(kOptions.begin(), kOptions.end(), key) == kOptions.end()) reader.Fail(key, "unknown option");
    reader.Expect(key, ':');
    if (key == "max_split_size_mb") {
      config.max_split_size = ReadMebibytesAtLeast20(reader, key);
    } else if (key == "max_non_split_rounding_mb") {
      config.max_non_split_rounding = ReadMebibytesAtLeast20(reader, key);
    } else if (key == "garbage_collection_threshold") {
      const double value = reader.Real(key);
      if (!(value > 0 && value < 1)) reader.Fail(key, fmt::format("must lie in (0, 1), found {}", value));
      config.garbage_collection_threshold = value;
    } else if (key == "roundup_power2_divisions") {
      ReadRoundupDivisions(reader, key, config.roundup_power2_divisions);
    } else if (key == "expandable_segments") {
      config.expandable_segments = reader.Boolean(key);
    } else if (key == "backend") {
      const std::string& backend = reader.Next(key);
      if (backend != "native") {
        reader.Fail(key, fmt::format("only the native caching allocator is modelled, not '{}'", backend));
      }
    } else if (key == "release_lock_on_cudamalloc" || key == "pinned_use_cuda_host_register" ||
               key == "pinned_use_background_threads") {
      reader.Boolean(key);  // locking and host memory: no effect on device placement
    } else {  // pinned_num_register_threads, the last of kOptions
      reader.Integer(key);
    }
    if (!reader.Done()) reader.Expect(key, ',');
  }
  return config;
}

Bytes RoundAllocationSize(Bytes size, const CachingAllocatorConfig& config) {
  if (size < kMinBlockSize) return kMinBlockSize;
  const int log_size = std::bit_width(static_cast<uint64_t>(size)) - 1;
  const size_t index = static_cast<size_t>(std::clamp(log_size - 20, 0, 15));
  const int64_t divisions = config.roundup_power2_divisions[index];
  if (divisions > 1 && size > kMinBlockSize * divisions) {
    // roundup_power2_next_division: the next of `divisions` equal steps between two powers of two.
    if (std::has_single_bit(static_cast<uint64_t>(size))) return size;
    const Bytes floor = Bytes{1} << log_size;
    // Nonzero: size > 512 * divisions keeps floor above 256 * divisions.
    const Bytes step = floor >> (std::bit_width(static_cast<uint64_t>(divisions)) - 1);
    return AlignUp(size, step);
  }
  return AlignUp(size, kMinBlockSize);
}

double CachingAllocatorResult::Fragmentation() const { return alloc::Fragmentation(peak_reserved, lower_bound); }

double CachingAllocatorResult::WastedShare() const { return alloc::WastedShare(peak_reserved, lower_bound); }

CachingAllocatorResult SimulateCachingAllocator(const Problem& problem, const CachingAllocatorConfig& config) {
  CachingAllocatorResult result;
  result.lower_bound = PeakLoad(problem);
  // A periodic pattern is replayed twice and measured in the second iteration, [period, 2 * period):
  // the first one warms the cache up, and buffers wrapping out of it are alive at its start.
  const int copies = problem.period > 0 ? 2 : 1;
  const TimeValue measure_from = problem.period > 0 ? problem.period : std::numeric_limits<TimeValue>::min();
  result.iterations = copies;
  std::vector<Event> events;
  events.reserve(problem.buffers.size() * 2 * static_cast<size_t>(copies));
  for (int copy = 0; copy < copies; ++copy) {
    const TimeValue shift = problem.period * copy;
    for (size_t i = 0; i < problem.buffers.size(); ++i) {
      events.push_back({problem.buffers[i].lower + shift, true, i, copy});
      events.push_back({problem.buffers[i].upper + shift, false, i, copy});
    }
  }
  // Frees before allocations at equal times; among equals, iteration then input order.
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.time, a.alloc, a.copy, a.buffer) < std::tie(b.time, b.alloc, b.copy, b.buffer);
  });

  Allocator allocator(config);
  std::vector<int> block_of(problem.buffers.size() * static_cast<size_t>(copies), -1);
  bool measuring = false;
  for (const Event& e : events) {
    if (!measuring && e.time >= measure_from) {
      // What the cache holds on entering the measured iteration counts too.
      measuring = true;
      result.peak_reserved = allocator.reserved;
      result.peak_allocated = allocator.allocated;
      result.peak_requested = allocator.requested;
    }
    const size_t slot = static_cast<size_t>(e.copy) * problem.buffers.size() + e.buffer;
    if (!e.alloc) {
      allocator.Free(block_of[slot]);
      continue;
    }
    block_of[slot] = allocator.Malloc(problem.buffers[e.buffer].size);
    if (block_of[slot] < 0) {
      result.out_of_memory = true;
      result.oom_buffer = problem.buffers[e.buffer].id;
      break;
    }
    if (measuring) {
      result.peak_reserved = std::max(result.peak_reserved, allocator.reserved);
      result.peak_allocated = std::max(result.peak_allocated, allocator.allocated);
      result.peak_requested = std::max(result.peak_requested, allocator.requested);
    }
  }
  result.segments_allocated = allocator.segments_allocated;
  result.segments_released = allocator.segments_released;
  result.alloc_retries = allocator.alloc_retries;
  return result;
}

CachingReplayResult ReplayCachingAllocator(const CachingReplay& replay, const CachingAllocatorConfig& config) {
  if (config.expandable_segments) throw std::invalid_argument("a replay with expandable segments is not modelled");
  CachingReplayResult result;
  Allocator allocator(config);
  std::unordered_map<Bytes, int> block_at;  // the model's block for each real address handed out
  Bytes real_reserved = 0;
  for (const CachingReplay::Segment& s : replay.segments) {
    const std::vector<int> live = allocator.AddSegment(s.address, s.size, s.small, s.live);
    for (size_t b = 0; b < live.size(); ++b) block_at[s.live[b].first] = live[b];
    real_reserved += s.size;
  }
  result.real_peak_reserved = real_reserved;
  result.model_peak_reserved = allocator.reserved;
  std::optional<Bytes> real_segment;  // the segment the real allocator took just before the next alloc
  for (size_t i = 0; i < replay.events.size(); ++i) {
    const CachingReplay::Event& e = replay.events[i];
    if (e.action == CachingReplay::Action::kSegmentAlloc) {
      real_reserved += e.size;
      ++result.real_segments_allocated;
      real_segment = e.address;
    } else if (e.action == CachingReplay::Action::kSegmentFree) {
      real_reserved -= e.size;
      ++result.real_segments_released;
    } else if (e.action == CachingReplay::Action::kFree) {
      const auto it = block_at.find(e.address);
      if (it == block_at.end()) {
        ++result.unknown_frees;
      } else {
        allocator.Free(it->second);
        block_at.erase(it);
      }
    } else {
      allocator.PlaceNextSegmentAt(real_segment);
      real_segment.reset();
      const int block = allocator.Malloc(e.size);
      if (block < 0) {
        result.out_of_memory = true;
        break;
      }
      ++result.allocations;
      const Bytes placed = allocator.AddressOf(block);
      if (placed == e.address) {
        ++result.at_real_address;
      } else if (!result.first_mismatch) {
        result.first_mismatch = CachingReplayResult::Mismatch{i, e.size, e.address, placed};
      }
      block_at[e.address] = block;
    }
    result.real_peak_reserved = std::max(result.real_peak_reserved, real_reserved);
    result.model_peak_reserved = std::max(result.model_peak_reserved, allocator.reserved);
  }
  result.model_segments_allocated = allocator.segments_allocated;
  result.model_segments_released = allocator.segments_released;
  return result;
}

}  // namespace alloc
