// A program whose first check bounds its input to a thousand values (after sv-benchmarks'
// loop-new/gauss_sum): its invariant `2 * sum == i * (i - 1)` is not linear, and Spacer does not find it in
// seconds; but past the check n takes 1000 values, and loopfuse runs the program on each of them
// (docs/loopfuse.md, "Re-checking"): no run reaches the error, so none can.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 1000) return 0;
  int sum = 0;
  for (int i = 1; i <= n; i++) sum = sum + i;
  __VERIFIER_assert(2 * sum == n * (n + 1));
  return 0;
}
