// The checks of the allocation fuzz targets (fuzz/harness.h): csv_reader, alloc_planners and caching_replay.
#include <fmt/core.h>

#include <string>

#include "alloc/caching_allocator.h"
#include "alloc/caching_replay.h"
#include "alloc/converter.h"
#include "alloc/planner.h"
#include "alloc/validator.h"
#include "common/error.h"
#include "common/progress.h"
#include "fuzz/harness.h"

namespace fuzz {
namespace {

// The first validation error of a plan, or "" when it is valid.
std::string AllocErrors(const alloc::Problem& problem, const alloc::Solution& solution) {
  const alloc::ValidationReport report = alloc::Validate(problem, solution);
  return report.ok() ? "" : report.errors.front();
}

}  // namespace

void CheckCsvReader(std::string_view data) {
  alloc::Problem problem;
  try {
    problem = alloc::ParseProblem("fuzz.csv", data);
  } catch (const common::InputError&) {
    return;
  }
  const alloc::Problem again = alloc::ParseProblem("roundtrip.csv", alloc::FormatProblem(problem));
  Require(again.buffers.size() == problem.buffers.size(), "round trip keeps the buffer count");
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const alloc::Buffer& a = problem.buffers[i];
    const alloc::Buffer& b = again.buffers[i];
    Require(a.id == b.id && a.lower == b.lower && a.upper == b.upper && a.size == b.size &&
                a.alignment == b.alignment && a.fixed_offset == b.fixed_offset,
            fmt::format("round trip keeps buffer '{}'", a.id));
  }
  // Large accepted problems are the planners' business (CheckAllocPlanners); this bounds the time per input.
  if (problem.buffers.size() > 200) return;
  common::Progress progress(false);
  alloc::PlanOptions options;
  options.method = "first-fit";
  const alloc::PlanResult plan = alloc::PlanAllocation(problem, options, progress);
  const std::string errors = AllocErrors(problem, plan.solution);
  Require(errors.empty(), "first-fit plan of an accepted problem validates: " + errors);
}

void CheckAllocPlanners(std::string_view data) {
  ByteReader in(data);
  alloc::Problem problem;
  const unsigned shape = in.Next();
  // Period 40 lets buffers that end after 40 wrap around (lower < 32 and length <= 16 keep them inside it).
  problem.period = shape & 1 ? 40 : 0;
  const size_t n = 1 + (shape >> 1) % 16;
  alloc::Bytes total = 0;
  for (size_t i = 0; i < n; ++i) {
    alloc::Buffer b;
    b.id = fmt::format("b{}", i);
    b.lower = in.Next() % 32;
    b.upper = b.lower + 1 + in.Next() % 16;
    b.size = 1 + in.Next() % 64;
    const unsigned extra = in.Next();
    b.alignment = alloc::Bytes{1} << (extra % 4);
    // One fixed buffer can always be honoured; several might overlap, which no plan could satisfy.
    if (i == 0 && extra & 0x80) b.fixed_offset = b.alignment * ((extra >> 2) % 8);
    total += b.size + b.alignment - 1 + b.fixed_offset.value_or(0);
    problem.buffers.push_back(std::move(b));
  }
  const alloc::Bytes lb = alloc::PeakLoad(problem);
  common::Progress progress(false);
  for (const std::string& method : alloc::Methods()) {
    alloc::PlanOptions options;
    options.method = method;
    options.moves = 300;
    options.seed = in.Next();
    const alloc::PlanResult plan = alloc::PlanAllocation(problem, options, progress);
    const std::string errors = AllocErrors(problem, plan.solution);
    Require(errors.empty(), method + " plan validates: " + errors);
    Require(plan.height == alloc::Height(problem, plan.solution), method + " reports its true height");
    Require(plan.height >= lb && plan.height <= total,
            fmt::format("{} height {} lies between LB {} and the total {}", method, plan.height, lb, total));
  }
}

void CheckCachingReplay(std::string_view data) {
  alloc::CachingReplay replay;
  try {
    replay = alloc::ParseCachingReplay("fuzz.json", data);
  } catch (const common::InputError&) {
    return;
  }
  if (replay.events.size() > 5000) return;  // a bound on the time per input
  int64_t allocs = 0;
  for (const alloc::CachingReplay::Event& e : replay.events) allocs += e.action == alloc::CachingReplay::Action::kAlloc;
  const alloc::CachingReplayResult r = alloc::ReplayCachingAllocator(replay, alloc::CachingAllocatorConfig{});
  Require(r.allocations == allocs, "every alloc event is replayed (no device limit: no out of memory)");
  Require(r.at_real_address <= r.allocations, "no more placements match than were made");
  Require(r.first_mismatch.has_value() == (r.at_real_address < r.allocations),
          "a first placement elsewhere is reported exactly when some placement differs");
  Require(r.model_peak_reserved >= 0 && r.real_peak_reserved >= 0, "reserved peaks are not negative");
}

}  // namespace fuzz
