extern void __VERIFIER_assert(int);
void count(int n) {
  if (n > 0) count(n - 1);
}
int main() { count(3); __VERIFIER_assert(1); return 0; }
