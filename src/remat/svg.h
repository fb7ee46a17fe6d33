// The memory curve of a schedule beside the reference order's, as an SVG picture (memplan plan --svg).
#pragma once

#include <string>
#include <vector>

#include "remat/graph.h"

namespace remat {

// Two step-wise curves, each stretched over the full width (schedules differ in length), with the budget
// as a dashed line and the peaks in the legend.
std::string MemoryCurveSvg(const std::string& title, const std::vector<Bytes>& before, const std::vector<Bytes>& after,
                           Bytes budget);

}  // namespace remat
