// C programs that several end-to-end tests of loopfuse run.
#pragma once

namespace testing_support {

// Safe, but its proof needs `4 * s == i * i * (i + 1) * (i + 1)` (degree 4, past the polynomial equalities that
// loopfuse guesses, and nonlinear for Spacer), so `loopfuse verify` runs for its whole time-out, and so does
// every solver run until its limit. Unsigned: the sum wraps modulo 2^64 as its closed form does, so it is safe
// for every n. n takes a million values, too many to run each (input_domains.h). Until 2026-12-07 this was
// `t == n^3` from two sums, which loopfuse proves since.
inline constexpr const char* kCubesProgram = R"(extern unsigned int __VERIFIER_nondet_uint(void);
extern void __VERIFIER_assume(int);
extern void __VERIFIER_assert(int);
int main(void) {
  unsigned int n = __VERIFIER_nondet_uint();
  __VERIFIER_assume(n <= 1000000);
  unsigned long long i = 0, s = 0;
  while (i < n) { i++; s = s + i * i * i; }
  __VERIFIER_assert(4 * s == i * i * (i + 1) * (i + 1));
  return 0;
}
)";

}  // namespace testing_support
