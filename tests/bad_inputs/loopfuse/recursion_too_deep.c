extern void __VERIFIER_assert(int);
int a[1000];
int count(int n) {
  if (n > 0) return count(n - 1) + a[n];
  return 0;
}
int main() { __VERIFIER_assert(count(100) == 0); return 0; }
