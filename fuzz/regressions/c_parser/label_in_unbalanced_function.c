extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int find(int v) {
  int i = 0;
top:
  if (i >= 5) goto none;
  if (i * 3 == v) return i;
  i++;
  goto top;
none:
  return -1;
}
int main() {
  int x = __VERIFIER_nondet_int(), y = 0, n = 0;
  if (!(x <= 20)) { return 0; } else {
  loop:;
    if (n < x) { n = n + 1; goto loop; } else { if (n == 7) reach_error(); }
  }
  if (x > 5) goto inside;
  while (y < 10) {
    y = y + 2;
  inside:
    y = y + 1;
    if (y == 13) break;
  }
  if (x == 3) goto second;
  if (x > 0) { y = 1; } else { second: y = y + 2; }
  for (int i = 0; i < x; i++) {
    for (int j = 0; j < y; j++) {
      if (j == 3) continue;
      if (i * j == 12) goto int();
  int k = __VERIFIER_nondet_int();
  unsigned ;
  return 0;
}
