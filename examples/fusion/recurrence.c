// A polynomial filled in by recurrences over arrays (after sv-benchmarks' array-fpi/eqn2): b[i] is
// 2i^2 + 2i + 1, which no linear invariant states. loopfuse fuses the three loops, keeps the cells one
// iteration back as scalars and reads i*i from a ghost (docs/loopfuse.md, "Recurrences").
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
void *malloc(unsigned long size);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0 || n > 100000) return 0;
  long long i;
  long long *a = malloc(sizeof(long long) * n);
  long long *b = malloc(sizeof(long long) * n);
  a[0] = 4;
  b[0] = 1;
  for (i = 1; i < n; i++) a[i] = a[i - 1] + 4;
  for (i = 1; i < n; i++) b[i] = b[i - 1] + a[i - 1];
  for (i = 0; i < n; i++) __VERIFIER_assert(b[i] == 2 * i * i + 2 * i + 1);
  return 0;
}
