// Soundness on the shared SV-COMP tasks: with a short time limit a verdict may be unknown, never wrong.
#include <gtest/gtest.h>


#include "fusion/parser.h"
#include "fusion/verifier.h"
#include "test_util.h"

namespace fusion {
namespace {

TEST(SvComp, NoWrongVerdictOnAnyTask) {
  const auto tasks = testing::SvCompTasks();
  if (tasks.empty()) GTEST_SKIP() << "no shared data in " << SHARED_DATA_DIR;
  int correct = 0;
  for (const auto& t : tasks) {
    const Verdict v = Verify(ParseFile(t.file), VerifyOptions{1.0, true});
    if (v.verdict != "unknown") {
      EXPECT_EQ(v.verdict, t.expected) << t.file << " (" << v.reason << ")";
    }
    correct += v.verdict == t.expected;
  }
  // The six buggy tasks are refuted by concrete runs, which do not depend on solver timing.
  EXPECT_GE(correct, 6);
}

}  // namespace
}  // namespace fusion
