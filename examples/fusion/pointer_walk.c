// Pointers walking an array: a pointer parameter moved by `*p++`, a pointer declared without a value that a
// loop moves until it meets `a + n`, and a difference of pointers (loopfuse verify
// examples/fusion/pointer_walk.c: true; with `*q == v + 1`: false).
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
#define N 100000

void fill(int *p, int n, int v) {
  while (n-- > 0) *p++ = v;
}

int main(void) {
  int a[N];
  int n = __VERIFIER_nondet_int(), v = __VERIFIER_nondet_int();
  if (n < 0 || n > N) return 0;
  fill(a, n, v);
  int *q;
  for (q = a; q < a + n; q++) __VERIFIER_assert(*q == v);
  __VERIFIER_assert(q - a == n);
  return 0;
}
