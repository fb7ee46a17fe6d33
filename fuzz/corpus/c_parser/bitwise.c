extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int x = __VERIFIER_nondet_int();
  unsigned u = __VERIFIER_nondet_int();
  long long w = x;
  x &= -8;
  x |= 1 << 3;
  u ^= 0xf0f0u;
  x = ~x & ~7;
  __VERIFIER_assert((x & 5) + (u | 6u) + (w ^ (1LL << 40)) + (x ^ -1) + (6 & x) != 7);
  return 0;
}
