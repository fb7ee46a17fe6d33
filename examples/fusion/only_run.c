// A program that reads no input (after sv-benchmarks' loops/eureka_05): a selection sort of a fixed array.
// Its loops are nested, its invariants quantified over the cells; but it has one run, and loopfuse makes
// that run concretely: reaching no error, it proves the program (docs/loopfuse.md, "Re-checking").
extern void __VERIFIER_assert(int cond);

int main(void) {
  int a[8] = {5, 3, 7, 0, 6, 1, 4, 2};
  int lh, rh, i, temp;  // uninitialised, but each is set before it is read
  for (lh = 0; lh < 8; lh++) {
    rh = lh;
    for (i = lh + 1; i < 8; i++)
      if (a[i] < a[rh]) rh = i;
    temp = a[lh];
    a[lh] = a[rh];
    a[rh] = temp;
  }
  for (i = 0; i < 8; i++) __VERIFIER_assert(a[i] == i);
  return 0;
}
