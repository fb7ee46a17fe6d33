// A seed that touches most of the C subset: typedefs, unsigned arithmetic, arrays, casts, ternaries,
// every loop form, nondeterministic values, assumptions and assertions.
typedef unsigned int u32;
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
void reach_error(void) {}
void __VERIFIER_assert(int cond) { if (!cond) { reach_error(); } }
int g = 3;
int main() {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n > 0 && n < 100);
  int a[100];
  u32 s = 0u;
  long long t = -1LL;
  for (int i = 0; i < n; i++) a[i] = i % 7;
  int j = n - 1;
  while (j >= 0) {
    s += (u32)a[j];
    if (a[j] == 3) { t = t * 2; } else if (!(a[j] < 2)) t--; else { j = j; }
    j--;
  }
  do { g = g > 0 ? g - 1 : 0; } while (g != 0);
  __VERIFIER_assert(s <= 6u * (u32)n && sizeof(int) == 4);
  return 0;
}
