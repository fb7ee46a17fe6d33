extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
struct P { int x; unsigned char c; };
typedef struct { struct P p; short s; } Q;
typedef struct _L { int v; struct _L *next; } L;
struct P g[8];
Q q;
int main() {
  struct P a[4];
  for (int i = 0; i < 4; i++) {
    a[i].x = __VERIFIER_nondet_int();
    a[i].c = a[i].x;
    g[i].x = a[i].c;
  }
  q.p.x = g[1].x;
  q.s = a[0].x;
  __VERIFIER_assert(q.p.x < 256 && g[5].c == 0);
  return 0;
}
