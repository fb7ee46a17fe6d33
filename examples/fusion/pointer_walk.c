// Pointers walking arrays: a pointer parameter moved by `*p++`, a copy through two pointers, a loop that runs
// until one pointer meets another, and a difference of pointers (loopfuse verify examples/fusion/pointer_walk.c:
// true; with `*q == v + 2`: false).
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
#define N 100000

void fill(int *p, int n, int v) {
  while (n-- > 0) *p++ = v;
}

int main(void) {
  int a[N], b[N];
  int n = __VERIFIER_nondet_int(), v = __VERIFIER_nondet_int();
  if (n < 0 || n > N || v < 0 || v > 1000) return 0;
  fill(a, n, v);
  int *src = a, *dst = b;
  while (src < a + n) *dst++ = *src++ + 1;
  for (int *q = b; q != dst; q++) __VERIFIER_assert(*q == v + 1);
  __VERIFIER_assert(dst - b == n);
  return 0;
}
