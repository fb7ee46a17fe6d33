// One loop initialises an array, the next checks it at the same index: classic aligned fusion.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0 || n > 1000) return 0;
  int a[n];
  for (int i = 0; i < n; i++) a[i] = 7;
  for (int i = 0; i < n; i++) __VERIFIER_assert(a[i] == 7);
  return 0;
}
