// Reading and writing schedules in `remat-schedule/v1` JSON (ARCHITECTURE.md).
#pragma once

#include <string>
#include <string_view>

#include "remat/graph.h"
#include "remat/planner.h"
#include "remat/validator.h"

namespace remat {

// The schedule file of a plan: the sequence as the input file's node ids, and the figures.
std::string FormatSchedule(const Graph& graph, const RematResult& result);

// A schedule read back: its sequence (node indices of `graph`) and what it claims.
struct ScheduleFile {
  Sequence sequence;
  ScheduleClaims claims;
};

// Parses a schedule of `graph`. Throws common::InputError ("file: sequence[4]: no node with id 9") for
// malformed JSON, another format, or an id the graph does not have.
ScheduleFile ParseSchedule(const std::string& file, std::string_view text, const Graph& graph);

}  // namespace remat
