// The allocation part of the report: the comparison of the planners (and the simulated PyTorch caching
// allocator) on one allocation problem, and the best plan drawn as rectangles over time.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/planner.h"
#include "alloc/problem.h"
#include "report/html.h"

namespace report {

// An SVG picture of a plan and how much of it was drawn.
struct PlanDrawing {
  std::string svg;
  size_t drawn = 0;  // buffers drawn (each wrapped buffer is two rectangles)
};

// Draws `solution` with time across and offsets up, one rectangle per buffer carrying data-id, data-size,
// data-lower, data-upper and data-offset (and a <title> for hover), with the lower bound and the height as
// lines. Only the `max_buffers` largest buffers are drawn when there are more (ties: input order).
PlanDrawing DrawPlan(const alloc::Problem& problem, const alloc::Solution& solution, size_t max_buffers);

// What the allocation sections show.
struct AllocFigures {
  std::vector<alloc::PlanResult> plans;                  // one row each; plans.front() is drawn
  std::optional<alloc::CachingAllocatorResult> caching;  // the simulated caching allocator's row, if run
  double caching_seconds = 0;
};

// Adds the sections "alloc-table" (the comparison) and "alloc-plan" (the picture of plans.front()) under
// headings that start with `what` ("Allocation", "Allocation of the schedule's buffers"). Returns the
// number of buffers drawn.
size_t AddAllocSections(Page& page, const std::string& what, const alloc::Problem& problem,
                        const AllocFigures& figures, size_t max_buffers);

}  // namespace report
