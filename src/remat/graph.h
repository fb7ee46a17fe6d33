// The computation graph of one training iteration, as the recomputation planners see it: values (tensors)
// with a size in bytes, and nodes (operators) that read and write values at a cost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

using Bytes = int64_t;  // a size in bytes (Moccasin's graphs: out_cost / cost_ram units)
using Cost = double;    // compute cost in the graph's cost unit (flops, seconds, Moccasin's duration)

// Where a value comes from and how long it lives.
enum class ValueKind {
  kInput,         // parameters, model inputs: live for the whole iteration, produced by no node
  kTangent,       // incoming gradients: like inputs
  kIntermediate,  // produced by a node, live from production through its last use
  kOutput,        // produced by a node and live from its last production to the end
};

// One tensor.
struct Value {
  std::string name = {};
  Bytes size = 0;
  ValueKind kind = ValueKind::kIntermediate;
  bool graph_output = false;   // listed in `outputs` (or kind output): live to the end of the iteration
  int producer = -1;           // node index; -1 for inputs and tangents
  std::vector<int> consumers = {};  // node indices that read it, each once, ascending
  int view_of = -1;            // value whose storage this one aliases (remat-graph/v1 `view_of`); -1: none
};

// One operator.
struct Node {
  std::string key = {};      // the node's id as written in the input file (JSON text: 7 or "relu_3")
  std::string name = {};
  Cost cost = 0;
  std::vector<int> inputs = {};  // value indices, each once
  std::vector<int> outputs = {};  // value indices
  bool recomputable = true;  // false: must run exactly once
  Bytes workspace = 0;       // scratch bytes alive only during the node's own step
};

// A checked graph: acyclic, every consumed value produced or a graph input, sizes and costs >= 0.
struct Graph {
  std::string name = {};
  std::string cost_unit;
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> order;  // the reference execution order (node indices, a topological order)
  bool views_aliased = false;  // views are memory of their owners (remat/views.h: AliasViews)

  // True for inputs and tangents: live throughout, never produced.
  bool IsGraphInput(int value) const {
    return values[value].kind == ValueKind::kInput || values[value].kind == ValueKind::kTangent;
  }
  // Total size of the inputs and tangents (memory present at every step).
  Bytes ResidentBytes() const;
  // Total size of `values`.
  Bytes TotalBytes(const std::vector<int>& values) const;
  // Whether a node or group reading `inputs` can regenerate `outputs` from no more memory than they take:
  // its inputs other than the graph inputs (which a schedule cannot free) hold no more bytes than its
  // outputs. The rule of FastSA's grouping (its chained add moves count only the inputs a copy keeps alive:
  // SlotState::RegeneratesAt).
  bool Regenerable(const std::vector<int>& inputs, const std::vector<int>& outputs) const;
  // No schedule can peak lower than this: resident bytes plus the larger of the graph outputs (all live at
  // the last step) and the largest single step (its node's non-resident inputs, outputs and workspace, and
  // the outputs of nodes that run only once that must be live across it: made by an ancestor, read by a
  // descendant or a graph output).
  Bytes PeakLowerBound() const;
};

// A schedule: node indices in execution order; a node appearing twice is recomputed.
using Sequence = std::vector<int>;

// Fills Value::producer and Value::consumers from the nodes, then checks the graph: values produced by
// two nodes, consumed values that no node produces and that are not inputs, a cycle (named node by node),
// an `order` that is not a topological order of all nodes. An empty `order` becomes the topological
// order that takes the smallest node index first. `file` prefixes the messages. Throws
// common::InputError.
void LinkAndCheck(Graph& graph, const std::string& file);

}  // namespace remat
