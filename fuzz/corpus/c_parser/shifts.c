extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int x = __VERIFIER_nondet_int();
  int k = __VERIFIER_nondet_int();
  unsigned u = x;
  if (k < 0 || k > 31) return 0;
  __VERIFIER_assert((x >> k) + (u << k) + ((x & 1) << (k / 2)) + x / 0 >= 0 || x < 0);
  return 0;
}
