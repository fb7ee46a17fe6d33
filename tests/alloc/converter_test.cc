#include "alloc/converter.h"

#include <gtest/gtest.h>

#include "alloc/validator.h"
#include "common/error.h"

namespace alloc {
namespace {

// Expects ParseProblem to fail with exactly `message`.
void ExpectError(std::string_view text, const std::string& message, TimeValue period = 0) {
  try {
    ParseProblem("p.csv", text, period);
    ADD_FAILURE() << "no error for: " << text;
  } catch (const common::InputError& e) {
    EXPECT_EQ(e.what(), message);
  }
}

TEST(Converter, ReadsModernHeaderWithOptionalColumns) {
  Problem p = ParseProblem("p.csv", "size,id,lower,upper,alignment,offset\n8,a,0,4,4,\n4,b,2,9,2,16\n");
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[0].id, "a");
  EXPECT_EQ(p.buffers[0].size, 8);
  EXPECT_EQ(p.buffers[0].alignment, 4);
  EXPECT_FALSE(p.buffers[0].fixed_offset);
  EXPECT_EQ(p.buffers[1].fixed_offset, 16);
  EXPECT_EQ(p.buffers[1].line, 3);
}

TEST(Converter, LegacyHeaderHasInclusiveEnd) {
  Problem p = ParseProblem("p.csv", "id,start,end,size\n0,3,5,10\n");
  EXPECT_EQ(p.buffers[0].lower, 3);
  EXPECT_EQ(p.buffers[0].upper, 6);
  // A one-moment buffer is fine in the legacy format.
  EXPECT_EQ(ParseProblem("p.csv", "id,start,end,size\n0,3,3,10\n").buffers[0].upper, 4);
}

TEST(Converter, BadInputsNameFileLineAndProblem) {
  ExpectError("", "p.csv: empty file (expected a header line)");
  ExpectError("id,lower,upper,size\n", "p.csv: no buffers (the file has a header but no rows)");
  ExpectError("id,lower,size\n0,1,2\n", "p.csv:1: missing column 'upper'");
  ExpectError("id,lower,upper,size\n0,1,2\n", "p.csv:2: expected 4 fields, found 3");
  ExpectError("id,lower,upper,size\n0,1,2,-5\n", "p.csv:2: size must be positive, found -5");
  ExpectError("id,lower,upper,size\n0,1,2,1.5\n", "p.csv:2: size is not an integer: '1.5'");
  ExpectError("id,lower,upper,size\n0,-1,2,1\n", "p.csv:2: lower is negative: -1");
  ExpectError("id,lower,upper,size\n0,4,4,1\n", "p.csv:2: upper 4 is not greater than lower 4");
  ExpectError("id,lower,upper,size\n0,1,2,1\n\n0,1,2,1\n", "p.csv:4: duplicate id '0' (first on line 2)");
  ExpectError("id,lower,upper,size,alignment\n0,1,2,1,0\n", "p.csv:2: alignment must be positive, found 0");
  ExpectError("id,lower,upper,size,alignment,offset\n0,1,2,1,4,6\n",
              "p.csv:2: fixed offset 6 is not a multiple of the alignment 4");
  ExpectError("id,lower,upper,size\n0,10,12,1\n", "p.csv:2: lower 10 is not inside the period 10", 10);
  ExpectError("id,lower,upper,size\n0,5,16,1\n", "p.csv:2: lifespan 11 is longer than the period 10", 10);
  ExpectError("id,start,end,size\n0,5,4,1\n", "p.csv:2: end 4 is before start 5");
}

TEST(Converter, PeriodicBufferWraps) {
  Problem p = ParseProblem("p.csv", "id,lower,upper,size\na,8,13,1\n", 10);
  auto life = p.Lifespan(0);
  ASSERT_EQ(life.size(), 2u);
  EXPECT_EQ(life[0].begin, 8);
  EXPECT_EQ(life[0].end, 10);
  EXPECT_EQ(life[1].begin, 0);
  EXPECT_EQ(life[1].end, 3);
}

TEST(Converter, PlanRoundTrip) {
  const std::string text = "id,lower,upper,size,alignment\nx,0,4,8,4\ny,2,9,4,2\n";
  Problem p = ParseProblem("p.csv", text);
  Solution s{{0, 8}};
  const std::string plan = FormatPlan(p, s);
  EXPECT_EQ(plan, "id,lower,upper,size,alignment,offset\nx,0,4,8,4,0\ny,2,9,4,2,8\n");
  // Reading the plan back as a problem gives the same buffers, now fixed where they were placed.
  Problem again = ParseProblem("plan.csv", plan);
  ASSERT_EQ(again.buffers.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(again.buffers[i].id, p.buffers[i].id);
    EXPECT_EQ(again.buffers[i].lower, p.buffers[i].lower);
    EXPECT_EQ(again.buffers[i].upper, p.buffers[i].upper);
    EXPECT_EQ(again.buffers[i].size, p.buffers[i].size);
    EXPECT_EQ(again.buffers[i].alignment, p.buffers[i].alignment);
    EXPECT_EQ(again.buffers[i].fixed_offset, s.offsets[i]);
  }
  EXPECT_EQ(FormatProblem(p), text);
}

TEST(Converter, PeakLoadAndHeight) {
  Problem p = ParseProblem("p.csv", "id,lower,upper,size\na,0,3,4\nb,3,9,4\nc,0,9,4\nd,9,21,4\ne,0,21,4\n");
  EXPECT_EQ(PeakLoad(p), 12);
  EXPECT_EQ(Height(p, Solution{{0, 0, 4, 0, 8}}), 12);
  // Periodic: a buffer wrapping into [0, 3) adds to the load there.
  Problem q = ParseProblem("p.csv", "id,lower,upper,size\na,0,3,4\nb,8,13,5\n", 10);
  EXPECT_EQ(PeakLoad(q), 9);
}

}  // namespace
}  // namespace alloc
