#include "alloc/validator.h"

#include <gtest/gtest.h>

#include "alloc/converter.h"

namespace alloc {
namespace {

const char* kFive = "id,lower,upper,size\na,0,3,4\nb,3,9,4\nc,0,9,4\nd,9,21,4\ne,0,21,4\n";

TEST(Validator, AcceptsAValidPlan) {
  Problem p = ParseProblem("p.csv", kFive);
  ValidationReport r = Validate(p, Solution{{0, 0, 4, 0, 8}});
  EXPECT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.height, 12);
}

TEST(Validator, TouchingInTimeOrAddressIsNoOverlap) {
  Problem p = ParseProblem("p.csv", "id,lower,upper,size\na,0,3,4\nb,3,9,4\nc,0,9,4\n");
  EXPECT_TRUE(Validate(p, Solution{{0, 0, 4}}).ok());
}

TEST(Validator, NamesEveryPlantedOverlap) {
  Problem p = ParseProblem("p.csv", kFive);
  // c moved onto a and b (both alive with c); e moved onto d.
  ValidationReport r = Validate(p, Solution{{0, 0, 2, 0, 2}});
  EXPECT_EQ(r.overlapping_pairs, 6u);  // (a,c) (b,c) (a,e) (b,e) (c,e) (d,e)
  std::string all;
  for (const auto& e : r.errors) all += e + "\n";
  EXPECT_NE(all.find("'a' (time [0, 3), address [0, 4)) and 'c'"), std::string::npos) << all;
  EXPECT_NE(all.find("'b' (time [3, 9), address [0, 4)) and 'c'"), std::string::npos) << all;
  EXPECT_NE(all.find("'c' (time [0, 9), address [2, 6)) and 'e'"), std::string::npos) << all;
  EXPECT_NE(all.find("'d' (time [9, 21), address [0, 4)) and 'e'"), std::string::npos) << all;
}

TEST(Validator, MissingMisalignedAndMovedFixedBuffers) {
  Problem p = ParseProblem("p.csv", "id,lower,upper,size,alignment,offset\na,0,3,4,4,\nb,3,9,4,1,8\nc,0,9,4,1,\n");
  std::vector<std::optional<Offset>> offsets = {2, 0, std::nullopt};
  ValidationReport r = Validate(p, offsets);
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0], "buffer 'a' at offset 2 is not aligned to 4");
  EXPECT_EQ(r.errors[1], "buffer 'b' is fixed at offset 8 but was placed at 0");
  EXPECT_EQ(r.errors[2], "buffer 'c' has no offset");
}

TEST(Validator, PeriodicWrapOverlapsTheStartOfTheIteration) {
  // b wraps into [0, 3): it collides with a there, though their unwrapped intervals are disjoint.
  Problem p = ParseProblem("p.csv", "id,lower,upper,size\na,0,2,4\nb,8,13,4\n", 10);
  EXPECT_EQ(Validate(p, Solution{{0, 0}}).overlapping_pairs, 1u);
  EXPECT_TRUE(Validate(p, Solution{{0, 4}}).ok());
  Problem q = ParseProblem("p.csv", "id,lower,upper,size\na,0,2,4\nb,8,13,4\n");
  EXPECT_TRUE(Validate(q, Solution{{0, 0}}).ok());
}

}  // namespace
}  // namespace alloc
