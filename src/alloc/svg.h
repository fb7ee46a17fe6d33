// A picture of an allocation plan for people: time across, addresses up, one rectangle per buffer (hover
// shows id, size, lifespan, offset), with the lower bound (peak load) and the height drawn as lines.
#pragma once

#include <string>

#include "alloc/problem.h"

namespace alloc {

// Renders `solution` as a self-contained SVG document; `title` goes in the heading.
std::string RenderSvg(const Problem& problem, const Solution& solution, const std::string& title);

}  // namespace alloc
