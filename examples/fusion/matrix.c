// One nest fills a 300 x 500 matrix, the next checks it. Each nest is collapsed into one loop over the
// cells in order (a[i][j] the cell of the new counter), and the two loops fuse as single loops do.
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main(void) {
  int m = 300, n = 500;
  int a[m][n];
  int c = __VERIFIER_nondet_int() % 7;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) a[i][j] = c + i - j;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) __VERIFIER_assert(a[i][j] - i + j == c);
  return 0;
}
