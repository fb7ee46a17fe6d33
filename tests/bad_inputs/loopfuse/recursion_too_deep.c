extern void __VERIFIER_assert(int);
int count(int n) {
  if (n > 0) return count(n - 1) + 1;
  return 0;
}
int main() { __VERIFIER_assert(count(100) == 100); return 0; }
