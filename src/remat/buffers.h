// A schedule as an allocation problem (ARCHITECTURE.md): every live interval of every value instance is
// one buffer [first step, last use + 1) of the value's size; inputs and tangents live throughout.
#pragma once

#include "alloc/problem.h"
#include "remat/graph.h"

namespace remat {

// The buffers of `sequence` (a valid schedule of `graph`): id "vI.K" for the K-th instance of value index I,
// "vI" for inputs and tangents, "wS" for the workspace of step S (ids stay CSV-safe whatever the names);
// zero-size values are left out. Its peak load equals the schedule's peak.
alloc::Problem ScheduleToBuffers(const Graph& graph, const Sequence& sequence);

}  // namespace remat
