// Reading computation graphs: `remat-graph/v1` JSON, and the Moccasin/Checkmate networkx node-link JSON
// graphs, told apart by their contents.
#pragma once

#include <string>
#include <string_view>

#include "remat/graph.h"

namespace remat {

// Parses either format and checks the result (LinkAndCheck). `file` names the source in messages, which
// carry the JSON path of the offending element ("g.json: nodes[3].inputs[1]: no value with id 77").
// Throws common::InputError for malformed JSON, an unknown `format`, a missing or mistyped field, a
// negative size or cost, a dangling or duplicate id, or a graph LinkAndCheck rejects.
//
// networkx graphs follow Moccasin's semantics: each node produces one value of its out_cost / cost_ram
// size; no value is a graph input or output; the reference order is `graph.order`, else a topological
// order by node id.
Graph ParseGraph(const std::string& file, std::string_view text);

// Reads and parses a graph file.
Graph ReadGraph(const std::string& path);

}  // namespace remat
