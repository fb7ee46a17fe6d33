// An SV-COMP task as a .c file: macros, and a divisor that is a variable set once (like
// array-programs/partial_mod_count_*.c). Safe: of the numbers below n, at most (n + 1) / 2 are even.
// (n is an input: with a fixed bound the program would have one run, and loopfuse would prove it by making
// that run instead of by invariants.)
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
#define SIZE 100000
#ifndef STEP
#define STEP 2
#endif
int main() {
  int a[SIZE];
  unsigned int m = STEP;
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > SIZE) return 0;
  int zeros = 0;
  for (int i = 0; i < n; i++) a[i] = i % m;
  for (int i = 0; i < n; i++) {
    if (a[i] == 0) zeros++;
    __VERIFIER_assert(2 * zeros <= n + 1);
  }
  return 0;
}
