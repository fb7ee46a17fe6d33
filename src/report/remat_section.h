// The recomputation part of the report: the planners compared on one training graph at one budget, the
// memory curve before and after recomputation, and what PyTorch's caching allocator would reserve instead
// of the planned arena.
#pragma once

#include <string>
#include <vector>

#include "alloc/problem.h"
#include "remat/graph.h"
#include "remat/planner.h"
#include "report/html.h"

namespace report {

// What the recomputation sections show.
struct RematFigures {
  std::string graph_name;                   // shown in the picture's heading
  std::vector<remat::RematResult> rows;     // one row each, the chosen schedule last
  std::vector<remat::Bytes> memory_before;  // bytes alive at each step of the reference order
  std::vector<remat::Bytes> memory_after;   // and of the chosen schedule
  remat::Bytes budget = 0;
  alloc::Bytes arena_height = 0;            // the chosen schedule's buffers placed in one arena
  alloc::Bytes reserved_reference = 0;      // simulated caching allocator, reference order
  alloc::Bytes reserved_schedule = 0;       // and the chosen schedule
};

// Adds the sections "remat-table" (the comparison and the caching-allocator line) and "memory-curve".
void AddRematSections(Page& page, const RematFigures& figures);

// The line memplan plan prints: what PyTorch's caching allocator would reserve against the planned arena.
std::string ReservedLine(alloc::Bytes reserved_reference, alloc::Bytes reserved_schedule, alloc::Bytes arena_height);

}  // namespace report
