extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int x = __VERIFIER_nondet_int();
  unsigned u = __VERIFIER_nondet_int();
  char c = x & 0x7f;
  __VERIFIER_assert((x & 1) + (1 & x) + (u & 255u) + (c & 3) + (x & -1) + (x & 0) >= 0 || x < 0);
  return 0;
}
