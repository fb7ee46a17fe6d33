// An SV-COMP task as a .c file: macros, and a divisor that is a variable set once (like
// array-programs/partial_mod_count_*.c). Safe: the even numbers below SIZE are SIZE / 2.
extern void __VERIFIER_assert(int cond);
#define SIZE 100000
#ifndef STEP
#define STEP 2
#endif
int main() {
  int a[SIZE];
  unsigned int m = STEP;
  int zeros = 0;
  for (int i = 0; i < SIZE; i++) a[i] = i % m;
  for (int i = 0; i < SIZE; i++) {
    if (a[i] == 0) zeros++;
    __VERIFIER_assert(zeros <= SIZE / 2);
  }
  return 0;
}
