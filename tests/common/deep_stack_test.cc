#include "common/deep_stack.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace common {
namespace {

// Recurses `depth` levels with 64 KB of its own on each: 16 MB at 256 levels, twice a default thread stack.
// The buffer is written and read so that no level's frame can be left out.
int Descend(int depth) {
  volatile char frame[64 * 1024];
  frame[depth % sizeof frame] = static_cast<char>(depth);
  if (depth == 0) return 0;
  return Descend(depth - 1) + (frame[depth % sizeof frame] == static_cast<char>(depth) ? 1 : 0);
}

TEST(DeepStack, RunsRecursionDeeperThanADefaultThreadStack) {
  int levels = -1;
  ASSERT_TRUE(RunWithStack(size_t{256} << 20, [&] { levels = Descend(256); }));
  EXPECT_EQ(levels, 256);
}

TEST(DeepStack, RethrowsWhatTheWorkThrew) {
  EXPECT_THROW(RunWithStack(size_t{1} << 20, [] { throw std::invalid_argument("bad"); }), std::invalid_argument);
}

}  // namespace
}  // namespace common
