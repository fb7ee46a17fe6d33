// The caching-allocator simulation on small traces whose PyTorch behaviour is derived by hand in the
// comments (rules of c10/cuda/CUDACachingAllocator.cpp, summarised in docs/caching_allocator.md).
#include "alloc/caching_allocator.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "alloc/converter.h"
#include "common/error.h"

namespace alloc {
namespace {

constexpr Bytes kMiB = Bytes{1} << 20;

Problem Trace(const std::string& rows, TimeValue period = 0) {
  return ParseProblem("trace.csv", "id,lower,upper,size\n" + rows, period);
}

CachingAllocatorResult Replay(const std::string& rows, const std::string& conf = "", Bytes device_memory = 0) {
  CachingAllocatorConfig config = CachingAllocatorConfig::Parse(conf);
  config.device_memory = device_memory;
  return SimulateCachingAllocator(Trace(rows), config);
}

// Sizes in the trace rows, in bytes.
std::string MiB(double mib) { return std::to_string(static_cast<Bytes>(mib * static_cast<double>(kMiB))); }

TEST(CachingAllocator, RoundsTo512Bytes) {
  const CachingAllocatorConfig c;
  EXPECT_EQ(RoundAllocationSize(1, c), 512);
  EXPECT_EQ(RoundAllocationSize(512, c), 512);
  EXPECT_EQ(RoundAllocationSize(513, c), 1024);
  EXPECT_EQ(RoundAllocationSize(5 * kMiB + 1, c), 5 * kMiB + 512);
}

TEST(CachingAllocator, RoundsToPowerOfTwoDivisions) {
  // 4 divisions: 5 MiB + 1 lies in [4, 8) MiB, whose steps are 4, 5, 6, 7 MiB: it rounds to 6 MiB.
  // 1200 B is not above 512 * 4, so it keeps the 512-byte rounding.
  const CachingAllocatorConfig four = CachingAllocatorConfig::Parse("roundup_power2_divisions:4");
  EXPECT_EQ(RoundAllocationSize(5 * kMiB + 1, four), 6 * kMiB);
  EXPECT_EQ(RoundAllocationSize(4 * kMiB, four), 4 * kMiB);
  EXPECT_EQ(RoundAllocationSize(1200, four), 1536);
  // The list form: intervals below 256 MiB and [256, 512) MiB get 1 division; '>' sets [512 MiB, ...) and,
  // as in PyTorch, also overwrites the interval named just before it (here 512 -> 4, not 2).
  const CachingAllocatorConfig list = CachingAllocatorConfig::Parse("roundup_power2_divisions:[256:1,512:2,>:4]");
  EXPECT_EQ(RoundAllocationSize(300 * kMiB + 1, list), 300 * kMiB + 512);
  EXPECT_EQ(RoundAllocationSize(600 * kMiB, list), 640 * kMiB);  // 512 MiB + steps of 128 MiB
  EXPECT_EQ(list.roundup_power2_divisions[9], 4);
}

TEST(CachingAllocator, SmallRequestsShareTwoMebibyteSegments) {
  // 1000 B rounds to 1024 B in the small pool, served from a new 2 MiB segment.
  CachingAllocatorResult one = Replay("a,0,1,1000\n");
  EXPECT_EQ(one.peak_reserved, 2 * kMiB);
  EXPECT_EQ(one.peak_allocated, 1024);
  EXPECT_EQ(one.peak_requested, 1000);
  EXPECT_EQ(one.segments_allocated, 1);
  // Two 1 MiB requests fill one segment (a splits it, b takes the 1 MiB rest exactly); a third needs a
  // second segment.
  EXPECT_EQ(Replay("a,0,2,1048576\nb,0,2,1048576\n").segments_allocated, 1);
  CachingAllocatorResult three = Replay("a,0,2,1048576\nb,0,2,1048576\nc,1,2,1048576\n");
  EXPECT_EQ(three.segments_allocated, 2);
  EXPECT_EQ(three.peak_reserved, 4 * kMiB);
}

TEST(CachingAllocator, LargeSegmentSizes) {
  // 1 MiB + 1 B rounds to 1 MiB + 512 B: large pool, a 20 MiB segment that b (5 MiB) shares after a split.
  CachingAllocatorResult shared = Replay("a,0,2," + std::to_string(kMiB + 1) + "\nb,1,2," + MiB(5) + "\n");
  EXPECT_EQ(shared.peak_reserved, 20 * kMiB);
  EXPECT_EQ(shared.segments_allocated, 1);
  // From 10 MiB on, the segment is the request rounded up to 2 MiB.
  EXPECT_EQ(Replay("a,0,1," + MiB(10) + "\n").peak_reserved, 10 * kMiB);
  EXPECT_EQ(Replay("a,0,1," + MiB(11) + "\n").peak_reserved, 12 * kMiB);
}

TEST(CachingAllocator, LargeBlocksSplitOnlyWhenMoreThanOneMebibyteRemains) {
  // a (19.5 MiB) gets a 20 MiB segment; 0.5 MiB would remain, so a holds all 20 MiB. Once a is freed,
  // b (18.5 MiB) splits the cached 20 MiB block (1.5 MiB > 1 MiB remain) and c takes that rest exactly.
  CachingAllocatorResult r = Replay("a,0,1," + MiB(19.5) + "\nb,1,3," + MiB(18.5) + "\nc,2,3," + MiB(1.5) + "\n");
  EXPECT_EQ(r.peak_allocated, 20 * kMiB);
  EXPECT_EQ(r.peak_reserved, 20 * kMiB);
  EXPECT_EQ(r.segments_allocated, 1);
}

TEST(CachingAllocator, BestFitTakesTheSmallestBlockNotTheFirst) {
  // y (14 MiB) and x (12 MiB) get segments of their size, in that order. Once both are freed, z (11 MiB)
  // takes the smallest block that fits, x's (1 MiB remains: no split), leaving y's 14 MiB for w (13 MiB).
  // First fit by address would give z the 14 MiB block and w a new segment.
  CachingAllocatorResult r =
      Replay("y,0,1," + MiB(14) + "\nx,0,1," + MiB(12) + "\nz,1,2," + MiB(11) + "\nw,1,2," + MiB(13) + "\n");
  EXPECT_EQ(r.segments_allocated, 2);
  EXPECT_EQ(r.peak_reserved, 26 * kMiB);
}

TEST(CachingAllocator, FreeBlocksMergeOnlyWithinTheirSegment) {
  // a and b (2 MiB each) split one 20 MiB segment; freed, the pieces merge back into 20 MiB, which c
  // (17 MiB) can use.
  CachingAllocatorResult within = Replay("a,0,1," + MiB(2) + "\nb,0,1," + MiB(2) + "\nc,1,2," + MiB(17) + "\n");
  EXPECT_EQ(within.segments_allocated, 1);
  EXPECT_EQ(within.peak_reserved, 20 * kMiB);
  // Two 12 MiB segments side by side never merge: a 24 MiB request needs a third segment.
  CachingAllocatorResult across = Replay("a,0,1," + MiB(12) + "\nb,0,1," + MiB(12) + "\nc,1,2," + MiB(24) + "\n");
  EXPECT_EQ(across.segments_allocated, 3);
  EXPECT_EQ(across.peak_reserved, 48 * kMiB);
}

TEST(CachingAllocator, MaxSplitSizeKeepsOversizeBlocksForLargeRequests) {
  // Without max_split_size, b (30 MiB) splits a's cached 40 MiB segment.
  const std::string rows = "a,0,1," + MiB(40) + "\nb,1,2," + MiB(30) + "\n";
  EXPECT_EQ(Replay(rows).peak_reserved, 40 * kMiB);
  // With 32 MiB, the 40 MiB block is oversize and b is below the limit: b gets its own 30 MiB segment.
  CachingAllocatorResult limited = Replay(rows, "max_split_size_mb:32");
  EXPECT_EQ(limited.peak_reserved, 70 * kMiB);
  EXPECT_EQ(limited.segments_allocated, 2);
  // A request above the limit takes an oversize block whole only if it wastes less than 20 MiB:
  // 36 MiB may take the 40 MiB block (allocated 40 MiB), 40 MiB may not take a 64 MiB block.
  CachingAllocatorResult rounded = Replay("a,0,1," + MiB(40) + "\nb,1,2," + MiB(36) + "\n", "max_split_size_mb:32");
  EXPECT_EQ(rounded.segments_allocated, 1);
  EXPECT_EQ(rounded.peak_allocated, 40 * kMiB);
  CachingAllocatorResult refused = Replay("a,0,1," + MiB(64) + "\nb,1,2," + MiB(40) + "\n", "max_split_size_mb:32");
  EXPECT_EQ(refused.segments_allocated, 2);
  EXPECT_EQ(refused.peak_reserved, 104 * kMiB);
}

TEST(CachingAllocator, ExpandableSegmentsGrowOneSegmentByPages) {
  // a (12 MiB), then b (14 MiB), then c (24 MiB), one after another.
  const std::string rows = "a,0,1," + MiB(12) + "\nb,1,2," + MiB(14) + "\nc,2,3," + MiB(24) + "\n";
  // Plain segments: none of the cached blocks fits the next request: 12 + 14 + 24 MiB.
  CachingAllocatorResult plain = Replay(rows);
  EXPECT_EQ(plain.peak_reserved, 50 * kMiB);
  EXPECT_EQ(plain.segments_allocated, 3);
  // Expandable: a maps one 20 MiB page; b reuses it; c needs 4 MiB more, so one more page is mapped
  // after the free 20 MiB and they merge into 40 MiB.
  CachingAllocatorResult grown = Replay(rows, "expandable_segments:True");
  EXPECT_EQ(grown.peak_reserved, 40 * kMiB);
  EXPECT_EQ(grown.segments_allocated, 2);
  EXPECT_EQ(grown.peak_allocated, 24 * kMiB);  // expandable blocks always split: nothing is held whole
}

TEST(CachingAllocator, OutOfMemoryFreesCachedSegmentsAndRetries) {
  // Device of 30 MiB. a's 12 MiB segment is cached when b (20 MiB) arrives; 12 + 20 > 30, so every unsplit
  // cached segment is released and the allocation retried.
  const std::string rows = "a,0,1," + MiB(12) + "\nb,1,2," + MiB(20) + "\n";
  CachingAllocatorResult r = Replay(rows, "", 30 * kMiB);
  EXPECT_FALSE(r.out_of_memory);
  EXPECT_EQ(r.segments_released, 1);
  EXPECT_EQ(r.alloc_retries, 1);
  EXPECT_EQ(r.peak_reserved, 20 * kMiB);
  // With a still alive there is nothing to release: out of memory at b.
  CachingAllocatorResult oom = Replay("a,0,2," + MiB(12) + "\nb,1,2," + MiB(20) + "\n", "", 30 * kMiB);
  EXPECT_TRUE(oom.out_of_memory);
  EXPECT_EQ(oom.oom_buffer, "b");
}

TEST(CachingAllocator, SplitSegmentsAreNotReleased) {
  // Device of 24 MiB. a and k (2 MiB each) split one 20 MiB segment; a is freed but k keeps the segment
  // split, so for b (19 MiB, needing a new 20 MiB segment) nothing can be released: out of memory.
  CachingAllocatorResult r = Replay("a,0,1," + MiB(2) + "\nk,0,3," + MiB(2) + "\nb,1,2," + MiB(19) + "\n", "", 24 * kMiB);
  EXPECT_TRUE(r.out_of_memory);
  EXPECT_EQ(r.oom_buffer, "b");
  EXPECT_EQ(r.segments_released, 0);
}

TEST(CachingAllocator, MaxSplitSizeReleasesOneOversizeBlockFirst) {
  // Device of 64 MiB, max_split_size 32 MiB. a's 40 MiB segment is cached, c holds 12 MiB. b (30 MiB)
  // may not use the oversize block and 40 + 12 + 30 > 64: the smallest cached block of at least
  // max(30, 32) MiB (a's) is released and the allocation retried, without releasing everything.
  CachingAllocatorResult r =
      Replay("a,0,1," + MiB(40) + "\nc,0,2," + MiB(12) + "\nb,1,2," + MiB(30) + "\n", "max_split_size_mb:32", 64 * kMiB);
  EXPECT_FALSE(r.out_of_memory);
  EXPECT_EQ(r.segments_released, 1);
  EXPECT_EQ(r.alloc_retries, 0);
  EXPECT_EQ(r.peak_reserved, 52 * kMiB);
}

TEST(CachingAllocator, GarbageCollectionFreesOldCachedBlocksBeforeAllocating) {
  // Device of 100 MiB at fraction 0.5: 50 MiB allowed, collection above 0.5 x 50 = 25 MiB. a (24 MiB) and
  // b (26 MiB) fill the 50 MiB; when c (30 MiB) misses, 50 > 25 MiB: a (age 2 lookups) is older than the
  // average 1.5 and goes first, then b (age 1, the new average): c fits without a full retry.
  const std::string rows = "a,0,1," + MiB(24) + "\nb,1,2," + MiB(26) + "\nc,2,3," + MiB(30) + "\n";
  CachingAllocatorConfig config = CachingAllocatorConfig::Parse("garbage_collection_threshold:0.5");
  config.device_memory = 100 * kMiB;
  config.memory_fraction = 0.5;
  CachingAllocatorResult collected = SimulateCachingAllocator(Trace(rows), config);
  EXPECT_FALSE(collected.out_of_memory);
  EXPECT_EQ(collected.segments_released, 2);
  EXPECT_EQ(collected.alloc_retries, 0);
  // Without the threshold, c fails against the 50 MiB allowed and needs the release-everything retry.
  config.garbage_collection_threshold = 0;
  CachingAllocatorResult retried = SimulateCachingAllocator(Trace(rows), config);
  EXPECT_EQ(retried.segments_released, 2);
  EXPECT_EQ(retried.alloc_retries, 1);
}

TEST(CachingAllocator, PeriodicPatternReportsTheSecondIteration) {
  // Period 10: a lives [0, 5); b lives [5, 15), i.e. into [0, 5) of the next iteration. In the first
  // iteration b reuses a's segment; in the second, a arrives while b is still alive and needs a second
  // segment. Steady state: 24 MiB reserved, which is also LB.
  const std::string rows = "a,0,5," + MiB(12) + "\nb,5,15," + MiB(12) + "\n";
  CachingAllocatorResult periodic = SimulateCachingAllocator(Trace(rows, 10), {});
  EXPECT_EQ(periodic.iterations, 2);
  EXPECT_EQ(periodic.lower_bound, 24 * kMiB);
  EXPECT_EQ(periodic.peak_reserved, 24 * kMiB);
  EXPECT_DOUBLE_EQ(periodic.Fragmentation(), 0.0);
  CachingAllocatorResult once = SimulateCachingAllocator(Trace(rows), {});
  EXPECT_EQ(once.iterations, 1);
  EXPECT_EQ(once.peak_reserved, 12 * kMiB);
}

TEST(CachingAllocator, FragmentationAgainstTheLowerBound) {
  CachingAllocatorResult r = Replay("a,0,1,1000\n");  // LB 1000 B, reserved 2 MiB
  EXPECT_DOUBLE_EQ(r.Fragmentation(), 2097152.0 / 1000.0 - 1.0);
  EXPECT_DOUBLE_EQ(r.WastedShare(), (2097152.0 - 1000.0) / 2097152.0);
}

// A recording whose real placements are derived by hand: one large segment of 20 MiB at address A with a
// 4 MiB block live at A + 8 MiB, so the free blocks are [A, A + 8 MiB) and [A + 12 MiB, A + 20 MiB).
constexpr Bytes kA = Bytes{1} << 40;

CachingReplay RecordedReplay() {
  CachingReplay r;
  r.segments.push_back({kA, 20 * kMiB, false, {{kA + 8 * kMiB, 4 * kMiB}}});
  using A = CachingReplay::Action;
  r.events = {
      // Best fit among two free blocks of 8 MiB: the lower address. 2 MiB from it leave 6 MiB: split.
      {A::kAlloc, kA, 2 * kMiB},
      // 7 MiB: the 8 MiB block above the live one (6 MiB are left below it); 1 MiB would remain: unsplit.
      {A::kAlloc, kA + 12 * kMiB, 7 * kMiB},
      // The live block goes back and merges with the 6 MiB before it: 10 MiB from A + 2 MiB.
      {A::kFree, kA + 8 * kMiB, 0},
      // 30 MiB fits nowhere: a new segment, which the real allocator took at B.
      {A::kSegmentAlloc, Bytes{2} << 40, 30 * kMiB},
      {A::kAlloc, Bytes{2} << 40, 30 * kMiB},
      // 10 MiB: the merged block, exactly.
      {A::kAlloc, kA + 2 * kMiB, 10 * kMiB},
  };
  return r;
}

TEST(CachingReplay, AModelThatFollowsPyTorchPlacesEveryBlockWhereTheRecordingDid) {
  const CachingReplayResult r = ReplayCachingAllocator(RecordedReplay(), CachingAllocatorConfig{});
  EXPECT_EQ(r.allocations, 4);
  EXPECT_EQ(r.at_real_address, 4);
  EXPECT_FALSE(r.first_mismatch.has_value());
  EXPECT_EQ(r.real_segments_allocated, 1);
  EXPECT_EQ(r.model_segments_allocated, 1);
  EXPECT_EQ(r.real_peak_reserved, 50 * kMiB);
  EXPECT_EQ(r.model_peak_reserved, 50 * kMiB);
  EXPECT_EQ(r.unknown_frees, 0);
}

TEST(CachingReplay, TheFirstPlacementElsewhereIsReported) {
  // A recording the model cannot follow: the 2 MiB request placed above the live block, not at A.
  CachingReplay replay = RecordedReplay();
  replay.events[0].address = kA + 12 * kMiB;
  replay.events.push_back({CachingReplay::Action::kFree, kA + 100 * kMiB, 0});  // never handed out
  const CachingReplayResult r = ReplayCachingAllocator(replay, CachingAllocatorConfig{});
  ASSERT_TRUE(r.first_mismatch.has_value());
  EXPECT_EQ(r.first_mismatch->event, 0u);
  EXPECT_EQ(r.first_mismatch->size, 2 * kMiB);
  EXPECT_EQ(r.first_mismatch->real_address, kA + 12 * kMiB);
  EXPECT_EQ(r.first_mismatch->model_address, kA);
  EXPECT_LT(r.at_real_address, r.allocations);
  EXPECT_EQ(r.unknown_frees, 1);
  // Expandable segments map pages where a recording of them has segment_map events: not replayed.
  EXPECT_THROW(ReplayCachingAllocator(RecordedReplay(), CachingAllocatorConfig::Parse("expandable_segments:True")),
               std::invalid_argument);
}

TEST(CachingAllocatorConfig, ParsesPyTorchSyntax) {
  const CachingAllocatorConfig c =
      CachingAllocatorConfig::Parse(" max_split_size_mb:128, expandable_segments:True,garbage_collection_threshold:0.6");
  EXPECT_EQ(c.max_split_size, 128 * kMiB);
  EXPECT_TRUE(c.expandable_segments);
  EXPECT_DOUBLE_EQ(c.garbage_collection_threshold, 0.6);
  EXPECT_EQ(CachingAllocatorConfig::Parse("").max_split_size, CachingAllocatorConfig::kNoLimit);
  EXPECT_FALSE(CachingAllocatorConfig::Parse("backend:native,release_lock_on_cudamalloc:True").expandable_segments);
}

// Parses `conf` expecting an error whose message contains `needle`.
void ExpectConfError(const std::string& conf, const std::string& needle) {
  try {
    CachingAllocatorConfig::Parse(conf, "--conf");
    ADD_FAILURE() << "no error for " << conf;
  } catch (const common::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("--conf: ", 0), 0u) << e.what();
  }
}

TEST(CachingAllocatorConfig, BadSettingsNameTheKey) {
  ExpectConfError("max_split_size_mb:128,colour:blue", "colour: unknown option");
  ExpectConfError("bogus", "bogus: unknown option");
  ExpectConfError("max_split_size_mb:10", "max_split_size_mb: must be >= 20");
  ExpectConfError("max_split_size_mb:lots", "max_split_size_mb: expected a non-negative integer");
  ExpectConfError("max_split_size_mb", "max_split_size_mb: a value is missing");
  ExpectConfError("expandable_segments:yes", "expandable_segments: expected True or False");
  ExpectConfError("garbage_collection_threshold:1.5", "garbage_collection_threshold: must lie in (0, 1)");
  ExpectConfError("roundup_power2_divisions:3", "roundup_power2_divisions: the divisions must be a power of 2");
  ExpectConfError("roundup_power2_divisions:[100:2]", "roundup_power2_divisions: interval starts must be powers of 2");
  ExpectConfError("backend:cudaMallocAsync", "backend: only the native caching allocator");
  ExpectConfError("expandable_segments:True max_split_size_mb:128", "expandable_segments: expected True or False");
}

}  // namespace
}  // namespace alloc
