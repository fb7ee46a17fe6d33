// The checks behind the libFuzzer targets (fuzz/*_fuzzer.cc), shared with the regression test that replays
// the seed corpora and every input a fuzzer once crashed on (fuzz/regressions_test.cc), so that the normal
// test suite keeps them fixed without libFuzzer. Each function accepts any bytes: input the reader rejects
// with common::InputError is fine; any other exception (std::logic_error names a broken invariant), crash
// or sanitizer report is a bug.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fuzz {

// A broken invariant: an exception that no reader throws for bad input, so the fuzzer reports it.
inline void Require(bool condition, const std::string& what) {
  if (!condition) throw std::logic_error("invariant broken: " + what);
}

// Reads the next byte of the input (0 once it is used up), so that every input decodes to something the
// generating checks can use.
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}
  unsigned Next() { return pos_ < data_.size() ? static_cast<unsigned char>(data_[pos_++]) : 0; }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// alloc::ParseProblem on MiniMalloc CSV; an accepted problem survives a format/parse round trip and its
// first-fit plan validates.
void CheckCsvReader(std::string_view data);

// remat::ParseGraph on remat-graph/v1 or networkx JSON; on an accepted graph the reference order and the
// Chen baseline's schedule pass the independent validator with the simulator's figures.
void CheckGraphReader(std::string_view data);

// A small remat graph decoded from the bytes (up to 16 nodes: graph inputs and tangents, zero sizes and
// costs, workspace, run-once nodes, views, several graph outputs), views aliased too where it has any: FastSA
// at a decoded budget and move count, and going on from its schedule to a lower budget, give schedules that
// the independent validator accepts with their reported figures, that repeat, that do not peak below the
// graph's lower bound nor above the reference order or the budget, that meet a budget the reference order
// meets at its cost, and whose buffers have the schedule's peak as their peak load and pack validly; going
// on ends no worse than its start. The baselines' schedules (none, Chen) at that budget pass the same checks.
// memplan plan's pipeline (tools::PlanJointly) on the same graph: its schedule and arena validate, the arena
// places that schedule's buffers, the budget verdict is the arena's, and it keeps the right try.
void CheckRematPlanners(std::string_view data);

// fusion::Parse on C text; an accepted program can be printed back as C.
void CheckCParser(std::string_view data);

// A small allocation problem decoded from the bytes (up to 16 buffers, optional period, alignment, one
// fixed offset); every planner's plan validates, lies between the peak load and the sum of the sizes, and
// reports its true height.
void CheckAllocPlanners(std::string_view data);

// A small program of the C subset generated from the bytes (2-3 loops over bounds <= 8, data of one integer
// type from signed char to unsigned long long, some starting next to the type's largest value, an array,
// filled from both ends in some, guarded breaks, continues and forward gotos and loops nested in loops in some,
// nondeterministic values assumed into a small range, one final assertion),
// its truth decided by running the interpreter on every value the inputs can take.
// loopfuse's verdicts, fused and unfused, agree with it: `true` only when no run fails, `false` only with a
// counterexample that the interpreter replays to the error. Aligned fusion and index-set splitting keep the
// number of failing runs. split+guess and the cell abstraction, verified alone, are proved only where no run
// fails.
void CheckLoopfuseVerdicts(std::string_view data);

// A small program generated from the bytes in the shape of SV-COMP's array-multidimensional tasks: two or
// three nests of two loops over the cells of two-dimensional arrays (extents 2 to 4, or 17 and 20, past what
// unrolling takes; loop bounds constants
// or inputs within them, for or while, upward or downward, `<` or `<=`, a constant assigned between the loops
// now and then), filled, copied (reversed or transposed now and then) or updated in place, then checked
// cell by cell or by a sum: the same checks as CheckLoopfuseVerdicts, against every run, where loopfuse
// collapses the nests before it fuses them.
void CheckLoopfuseNestVerdicts(std::string_view data);

// alloc::ParseCachingReplay on caching-replay/v1 JSON; an accepted recording replays through the model of the
// caching allocator (ReplayCachingAllocator) with every alloc event placed, and a first mismatch reported
// exactly when some placement differs from the recorded one.
void CheckCachingReplay(std::string_view data);

}  // namespace fuzz
