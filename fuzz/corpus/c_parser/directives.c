#include <stdlib.h>
# 1 "directives.c"
#define N 8
#define HALF (N / 2)
#define EMPTY
#if defined(N) && HALF * 2 == N && (1 ? 3 : 1 / 0) > -1u
#define STEP 1
#elif 0
#error never
#else
#define STEP 2
#endif
#ifdef EMPTY
#undef EMPTY
#endif
#ifndef EMPTY
#pragma once
#endif
#if 0
it's not C @ $
#endif
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int a[N];
  unsigned int r = 3;
  for (int i = 0; i < N; i += STEP) a[i] = i % r;
  __VERIFIER_assert(a[HALF] <= 2);
  return 0;
}
