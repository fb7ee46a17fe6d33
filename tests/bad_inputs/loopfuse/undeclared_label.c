extern int __VERIFIER_nondet_int(void);
int main() {
  int x = __VERIFIER_nondet_int();
  if (x > 0) goto done;
  x = 1;
 don:
  return x;
}
