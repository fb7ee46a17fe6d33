// The skyline of a drop decode: for every elementary interval of the compressed time axis, the highest
// address in use. Buffers dropped "under gravity" land on the maximum of the skyline over their lifespan
// and raise it to their top. Kept in a segment tree with range-max queries and range-chmax updates (a drop
// raises the skyline to a value at least as high as everything under it, so chmax is the same as assign).
//
// The tree is iterative and never pushes tags down: a pending chmax at a node applies to its whole range,
// so a query takes the maximum of the nodes that cover it plus the tags of the boundary leaves' ancestors.
// That keeps both operations at about 2 log2(T) array steps, which the annealing planner does millions of
// times per second.
#pragma once

#include <cstdint>
#include <vector>

namespace alloc {

// Range-max / range-chmax segment tree over `size` positions, all starting at 0.
class Skyline {
 public:
  explicit Skyline(uint32_t size);

  // Sets every position to 0.
  void Clear();
  // Copies another skyline of the same size (a cheap reset to a prepared floor).
  void CopyFrom(const Skyline& other);

  // Maximum over positions [begin, end); 0 for an empty range.
  int64_t Max(uint32_t begin, uint32_t end) const;
  // Raises every position in [begin, end) to at least `value`.
  void Raise(uint32_t begin, uint32_t end, int64_t value);
  // Maximum over all positions.
  int64_t Top() const { return tree_[1]; }

 private:
  uint32_t leaves_;              // a power of two >= size
  std::vector<int64_t> tree_;    // max over the node's range, its own tag included
  std::vector<int64_t> tag_;     // pending raise that applies to the node's whole range
};

}  // namespace alloc
