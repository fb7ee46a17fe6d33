// C programs that several end-to-end tests of loopfuse run.
#pragma once

namespace testing_support {

// Safe, but its proof needs t == n^3 (nonlinear): Spacer does not find it, so `loopfuse verify` runs for its
// whole time-out, and so does every solver run until its limit. n takes a million values, too many to run
// each (input_domains.h; with n <= 1000, every run proved it).
inline constexpr const char* kCubesProgram = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void __VERIFIER_assert(int);
int main(void) {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n >= 0 && n <= 1000000);
  long long i = 0, s = 0;
  while (i < n) { s = s + 2 * i + 1; i++; }
  long long j = 0, t = 0;
  while (j < n) { t = t + s; j++; }
  __VERIFIER_assert(t == (long long)n * n * n);
  return 0;
}
)";

}  // namespace testing_support
