// Out-parameters: a pointer parameter given `&x` is x itself, read and written as `*p`
// (loopfuse verify examples/fusion/out_parameters.c: true; with `hi < 100`: false).
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);

void add(int *sum, int x) { *sum = *sum + x; }

void track(int x, int *lo, int *hi) {
  if (x < *lo) *lo = x;
  if (x > *hi) *hi = x;
}

int main(void) {
  int n = __VERIFIER_nondet_int();
  int lo = 0, hi = 0, sum = 0;
  for (int i = 0; i < n; i++) {
    int x = __VERIFIER_nondet_int();
    if (x < 0 || x > 100) return 0;
    add(&sum, x);
    track(x, &lo, &hi);
  }
  __VERIFIER_assert(lo == 0 && hi <= 100 && sum >= hi);
  return 0;
}
