// A loop of 10^8 iterations in two phases (after sv-benchmarks' loops-crafted-1/Mono1_1-2): x counts by
// one, then by two while z counts the second phase. The program reads nothing, so its only run decides it,
// and loopfuse's interpreter jumps over the iterations of each phase (docs/loopfuse.md, "Re-checking"):
// the run takes milliseconds, where one iteration at a time it took seconds.
extern void __VERIFIER_assert(int cond);

int main(void) {
  unsigned int x = 0;
  unsigned int z = 0;
  while (x < 100000000) {
    if (x < 10000000) {
      x++;
    } else {
      x += 2;
      z++;
    }
  }
  __VERIFIER_assert(x == 100000000 && z == 45000000);
  return 0;
}
