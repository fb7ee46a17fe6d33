extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error() {}
void __VERIFIER_assert(int cond) { if (!(cond)) { ERROR: {reach_error(); abort();} } }
void assume_abort_if_not(int cond) { if (!cond) { abort(); } }
int g = 1;
int zeros[3];
int primes[] = {2, 3, 5, 7,};
int read_port(void) { int x = __VERIFIER_nondet_int(); return x; }
int twice(int v) { v = v * 2; return v; }
void kept(int a) { g = 0; __VERIFIER_assert(a != 7); }
int main() {
  int a[4] = {1, 2};
  char v[] = {'a', 'e', '\0'};
  int x = read_port();
  int i, j;
  assume_abort_if_not(x > -100 && x < 100);
  i = twice(x);
  i = j = i + a[1] + zeros[2] + primes[3];
  kept(g);
  late(x >> 2, x << 3);
  __VERIFIER_assert(i == j && v[1] == 'e');
  return 0;
}
void late(int v, int w) { __VERIFIER_assert(v != 9 || w != 0); }
int sum(int a[3]) { int s = 0; for (int k = 0; k < 3; k++) s = s + a[k]; return s; }
int square(int v) { return v * v; }
void clear(int *a, int k) { a[k] = 0; }
int big[10000] = {4, 5};
int *heap;
int other() { int x[3]; clear(x, 1); int t = sum(x); __VERIFIER_assert(square(t) >= 0); return 0; }
