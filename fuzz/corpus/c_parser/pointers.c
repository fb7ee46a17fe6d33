extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
extern void *calloc(unsigned long, unsigned long);
extern void free(void *);
void reach_error() {}
void __VERIFIER_assert(int cond) { if (!(cond)) { reach_error(); } }
int table[8];
int *cursor;
int *third = table + 2;
void push(int v) { *cursor++ = v; }
int sum(const int *b, const int *e) { int s = 0; for (; b != e; ++b) s += *b; return s; }
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 8) return 0;
  cursor = table;
  for (int i = 0; i < n; i++) push(i);
  int *z = calloc(n, sizeof(int));
  int *h = malloc(n * sizeof(int));
  int *y = __builtin_alloca(n * sizeof(int));
  for (int *p = h; p < h + n; p++) *p = 1;
  for (int i = 0; i < n; i++) y[i] = *(z + i) + h[i];
  __VERIFIER_assert(sum(y, y + n) == n && cursor - table == n && *third == (n > 2 ? 2 : 0));
  free(z);
  free((void *)h);
  return 0;
}
