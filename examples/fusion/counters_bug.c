// The second loop runs once too often: the assertion fails when n > 0.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int k = 0;
  int i = 0;
  while (i < n) {
    i++;
    k++;
  }
  int j = n;
  while (j >= 0) {
    __VERIFIER_assert(k > 0);
    j--;
    k--;
  }
  return 0;
}
