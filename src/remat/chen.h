// Chen et al. (2016) √n checkpointing, generalised from chains to any graph: keep the outputs of every
// L-th node of the reference order (and of nodes that cannot be recomputed); recompute any other value
// from the nearest kept ones when a step needs it and it was produced too long ago.
#pragma once

#include "remat/graph.h"

namespace remat {

// The checkpointed schedule for segment length `segment` (>= 1): valid for every graph.
Sequence CheckpointSchedule(const Graph& graph, int segment);

// Chen's baseline: tries segment lengths around √n (and a few others) and returns the cheapest schedule
// that meets `budget`, else the one with the lowest peak.
Sequence ChenSchedule(const Graph& graph, Bytes budget);

}  // namespace remat
