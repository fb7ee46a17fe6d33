extern unsigned int __VERIFIER_nondet_uint(void);
extern void __VERIFIER_assume(int);
extern void __VERIFIER_assert(int);
int main() {
unsigned int x0 = __VERIFIER_nondet_uint(); __VERIFIER_assume(x0 >= 0u && x0 <= 2u);
unsigned int x1 = __VERIFIER_nondet_uint(); __VERIFIER_assume(x1 >= 0u && x1 <= 2u);
unsigned int s0 = 0u; unsigned int s1 = 3u; unsigned int s2 = x1; int i0 = 0; int i1 = 0;
i0 = x0; while (i0 > 0) { i0 = i0 - 1; s2 = s2 + s0; }
for (i1 = 0; i1 < x0 + 3; i1++) { s1 = i1 - x0; s1 = i1 + s2; s1 = 3u; }
__VERIFIER_assert(s0 - s1 != 4294967294u);
return 0;
}
