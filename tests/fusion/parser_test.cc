#include "fusion/parser.h"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <functional>
#include <regex>

#include "fusion/errors.h"
#include "fusion/printer.h"
#include "fusion/verifier.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::ParseText;

// The parsed program of source, after checking that on each list of inputs the interpreter's outcome on it is
// that of gcc's build of gcc_source (source itself unless given: gcc may need prototypes that the parser does
// not).
Program AgreesWithGcc(const std::string& source, const std::vector<std::vector<long long>>& runs,
                      const std::string& gcc_source = "") {
  const Program p = ParseText(source);
  testing::CompareWithGcc(p, gcc_source.empty() ? source : gcc_source, runs);
  return p;
}

// Parses source, checks it against gcc on runs (AgreesWithGcc), and expects every run to end without error:
// for programs whose assertions hold on every input given.
void FinishesOnEveryRun(const std::string& source, const std::vector<std::vector<long long>>& runs) {
  const Program p = AgreesWithGcc(source, runs);
  for (const std::vector<long long>& run : runs) {
    EXPECT_EQ(testing::InterpretOn(p, run), Outcome::kFinished) << "inputs " << ::testing::PrintToString(run);
  }
}

// What parsing text fails with: "unsupported: <message>" for a construct outside the subset, "error: <message>"
// for any other input error, or "no error".
std::string ParseFailure(const std::string& text) {
  try {
    ParseText(text);
  } catch (const UnsupportedError& e) {
    return "unsupported: " + std::string(e.what());
  } catch (const common::InputError& e) {
    return "error: " + std::string(e.what());
  }
  return "no error";
}

TEST(Parser, MakesConversionsExplicit) {
  Program p = ParseText("int main() { unsigned int u = 3; int i = -1; if (i < u) return 1; return 0; }");
  // In C, i < u compares as unsigned: -1 becomes 4294967295, so the branch is not taken.
  const std::string c = PrintProgram(p);
  EXPECT_NE(c.find("((unsigned int)i) < u"), std::string::npos) << c;
}

TEST(Parser, RenamesShadowingDeclarations) {
  Program p = ParseText("int main() { for (int i = 0; i < 2; i++) {} for (int i = 0; i < 3; i++) {} return 0; }");
  ASSERT_EQ(p.vars.size(), 2u);
  EXPECT_NE(p.vars[0].name, p.vars[1].name);
}

TEST(Parser, SkipsTheVerificationHelpersAndGnuExtras) {
  Program p = ParseText(R"(
typedef unsigned int size_t;
extern void __assert_fail (const char *__assertion, const char *__file, unsigned int __line,
    const char *__function) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__noreturn__));
void reach_error() { ((void) sizeof ((0) ? 1 : 0), __extension__ ({ if (0) ; else __assert_fail ("0", "f.c", 3, __extension__ __PRETTY_FUNCTION__); })); }
void __VERIFIER_assert(int cond) { if(!(cond)) { ERROR: {reach_error();abort();} } }
int main() { size_t n = __VERIFIER_nondet_uint(); __VERIFIER_assert(n >= 0); return 0; }
)");
  EXPECT_EQ(p.VarNamed("n").type, kUnsigned);
  // Qualifiers wherever C allows them, as glibc's headers and the heap tasks write them (each was a syntax
  // error where it followed a '*' of a parameter, or preceded a typedef at the top level), against gcc.
  FinishesOnEveryRun(R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
__extension__ typedef long long int i64;
extern const char *const sys_errlist[];
struct node { int v; struct node *next; };
int get(const int *const p) { return *p; }
int value(const struct node *const volatile n) { return n->v; }
int main() {
  register i64 x = __VERIFIER_nondet_int();
  int a = (int)x;
  const int *restrict q = &a;
  struct node *const n = malloc(sizeof(struct node));
  n->v = a;
  __VERIFIER_assert(get(&a) == x && *q == a && value(n) == a);
  return 0;
}
)",
                     {{0}, {-7}, {2147483647}});
  EXPECT_EQ(ParseFailure("extern int errs[];\nint main() { return errs[0]; }"),
            "unsupported: t.c:2:21: unsupported use of 'errs', a global array declared extern without its size");
  // A function's name as a value is a pointer to it, outside the subset (was a syntax error, "undeclared").
  EXPECT_EQ(ParseFailure("void h(int i) { }\nvoid f(void g(int)) { g(1); }\nint main() { f(h); return 0; }"),
            "unsupported: t.c:3:16: unsupported use of function 'h' as a value (a pointer to a function)");
}

TEST(Parser, SyntaxErrorsSayFileLineColumnAndWhatWasExpected) {
  try {
    ParseText("int main() {\n  int x = 1\n  return 0;\n}\n");
    FAIL() << "no error";
  } catch (const UnsupportedError&) {
    FAIL() << "a syntax error is not an unsupported construct";
  } catch (const common::InputError& e) {
    EXPECT_STREQ(e.what(), "t.c:3:3: expected ';' before 'return'");
  }
}

TEST(Parser, ConstructsOutsideTheSubsetAreUnsupported) {
  EXPECT_THROW(ParseText("int main() { int x = 1; x = x << __VERIFIER_nondet_int(); return 0; }"), UnsupportedError);
  EXPECT_THROW(ParseText("int main() { int x = 1; x = x << 32; return 0; }"), UnsupportedError);
  EXPECT_THROW(ParseText("int main() { int x; int *p = &x; p++; return 0; }"), UnsupportedError);
  EXPECT_THROW(ParseText("int main() { int a[3][3]; int *p = a[1]; return 0; }"), UnsupportedError);
  EXPECT_THROW(ParseText("int n = 3; int main() { int a[n] = {1}; return 0; }"), UnsupportedError);
  EXPECT_THROW(ParseText("union u { int a; }; int main() { union u v; return 0; }"), UnsupportedError);
  try {
    ParseText("int main() {\n  case 1: ;\n}\n");
    FAIL() << "no error";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("t.c:2:3: unsupported", 0), 0u) << e.what();
  }
}

// A struct variable is one variable per member (an array per member for an array of structs); gcc runs the
// source: wrap-around of each member's type, zeroed globals, nested members, shadowing.
TEST(Parser, StructsMeanWhatGccMakesOfThem) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
struct P { int x; unsigned char c; };
typedef struct { struct P p; short s; } Q;
struct P g[4];
Q q;
struct Unused { int *ptr; union { int i; char b[4]; } u; };
extern struct Unused unused;
struct P one;
int main() {
  struct P a[3];
  int k = __VERIFIER_nondet_int();
  one.x = k;
  one.c = k;
  for (int i = 0; i < 3; i++) {
    a[i].x = __VERIFIER_nondet_int();
    a[i].c = a[i].x + 250;
  }
  q.p.x = a[1].x;
  q.s = 40000;
  g[2].c = 7;
  __VERIFIER_assert(g[0].x == 0 && g[3].c == 0 && g[2].c == 7 && q.p.c == 0);
  __VERIFIER_assert(one.c != 3 || a[2].c != 4);
  __VERIFIER_assert(q.s != -25536 || q.p.x != 9);
  {
    struct P one[1];
    one[0].x = 5;
    __VERIFIER_assert(one[0].x == 5 && q.p.x != 1);
  }
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{3, 0, 0, 10}, {259, 0, 9, 11}, {259, 0, 8, 11}, {2, 0, 1, 0}});
  EXPECT_TRUE(p.VarNamed("a_x").is_array);
  EXPECT_EQ(p.VarNamed("a_c").type, (IntType{8, false}));
  EXPECT_EQ(p.VarNamed("q_p_x").type, kInt);
  EXPECT_EQ(p.VarNamed("q_s").type, (IntType{16, true}));
}

// What a struct cannot be here is refused where it is used, with the reason; the headers' structs of
// pointers and unions are no error until then.
// A struct variable whose address the file takes is an object on the heap (`&s` a pointer to it as to any object
// of its struct); initialisers with nested braces or without (brace elision), trailing commas and fewer values
// than members (the rest zero), global and local; whole structs assigned (`t = s`, `a[i] = a[j]`, `*p = a[i]`,
// `*q = *p`, `g = *q`, `struct S v = t;`). ldv-regression's nested_structure and structure_assignment tasks.
TEST(Parser, StructsOnTheHeapAndWholeStructsMeanWhatGccMakesOfThem) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
struct in { short x; unsigned char y; };
struct S { int a; struct in i; struct S *next; int b; };
struct R { struct in lo; struct in hi; };
struct S g = {7, {70000, 300}, 0, -1};
struct S z;
int sum(struct S *p) { int t = 0; while (p) { t += p->a + p->i.x; p = p->next; } return t; }
void bump(struct S *p, int k) { p->a += k; (*p).i.y = k; }
int main() {
  int k = __VERIFIER_nondet_int();
  int m = __VERIFIER_nondet_int();
  struct S s = {k, {m, 2}};
  struct S t = {1, 2, 3, &s, 4};
  struct S u = {m,};
  struct S v = t;
  struct S arr[3];
  struct R r = {1, 2, 3}, r2 = {1, 2, {m, 4}};
  __VERIFIER_assert(r.lo.y == 2 && r.hi.x == 3 && r.hi.y == 0 && r2.hi.x == (short)m && r2.hi.y == 4);
  bump(&s, 5);
  __VERIFIER_assert(s.a == k + 5 && s.i.x == (short)m && s.i.y == 5 && s.next == 0 && s.b == 0);
  __VERIFIER_assert(t.i.x == 2 && t.i.y == 3 && t.next == &s && t.b == 4 && t.next->a == k + 5);
  __VERIFIER_assert(u.a == m && u.i.x == 0 && u.next == 0 && v.next == &s && v.b == 4);
  __VERIFIER_assert(g.i.x == (short)70000 && g.i.y == 44 && g.b == -1 && z.a == 0 && z.next == 0);
  __VERIFIER_assert(sum(&t) == 1 + 2 + k + 5 + (short)m);
  arr[0] = s;
  arr[1] = t;
  arr[2] = arr[0];
  arr[0] = arr[1];
  __VERIFIER_assert(arr[2].a == k + 5 && arr[0].b == 4 && arr[0].next == &s);
  struct S *p = malloc(sizeof(struct S));
  *p = arr[2];
  struct S *q = malloc(sizeof(struct S));
  *q = *p;
  q->next = p;
  g = *q;
  __VERIFIER_assert(g.a == k + 5 && g.next == p && p->i.y == 5 && sum(q) == 2 * (k + 5 + (short)m));
  s = t;
  __VERIFIER_assert(s.next == &s && s.a == 1);
  if (k == 3 && m == 4) __VERIFIER_assert(arr[1].a == 2);
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{0, 0}, {3, 4}, {-5, 70000}, {2147483000, -3}});
  EXPECT_EQ(testing::InterpretOn(p, {3, 4}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {3, 5}), Outcome::kFinished);
}

TEST(Parser, StructsOutsideTheSubsetAreRefusedWithTheReason) {
  const std::string s = "struct S { int n; int m; };\n";
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v; if (v) return 1; return 0; }"),
            "unsupported: t.c:2:30: unsupported use of struct 'v' as a whole (only its members)");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v; v; return 0; }"),
            "unsupported: t.c:2:26: unsupported use of a whole struct (only its members, or an assignment)");
  EXPECT_EQ(ParseFailure(s + "struct T { int n; int m; };\nint main() { struct S v; struct T w; v = w; return 0; }"),
            "error: t.c:3:40: assignment of struct T to struct S");
  EXPECT_EQ(ParseFailure(s + "struct S f(void);\nint main() { struct S v = f(); return 0; }"),
            "unsupported: t.c:3:27: unsupported value of a whole struct (only a struct variable, 'a[i]' or '*p')");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v = {.m = 1}; return 0; }"),
            "unsupported: t.c:2:28: unsupported designated initialiser");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v = {1, 2, 3}; return 0; }"),
            "error: t.c:2:34: excess elements in the initialiser of struct S");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v[2] = {{1, 2}}; return 0; }"),
            "unsupported: t.c:2:28: unsupported initialiser of the array of structs 'v' (of struct S)");
  EXPECT_EQ(ParseFailure(s + "int get(struct S *p) { return p->n; }\nint main() { struct S v; int n = get(&v); "
                             "return get(v); }"),
            "unsupported: t.c:3:54: unsupported struct 'v' passed whole (only an array of structs)");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v[2]; v[0].n = v.n; return 0; }"),
            "unsupported: t.c:2:38: unsupported use of array of structs 'v' without an index");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S **p; p = 0; return 0; }"),
            "unsupported: t.c:2:28: unsupported use of 'p', a pointer to a pointer to 'struct S'");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v; v.k = 1; return 0; }"),
            "error: t.c:2:28: no member named 'k' in struct S");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v[1]; v->n = 1; return 0; }"),
            "unsupported: t.c:2:30: unsupported operator '->' (pointers)");
  EXPECT_EQ(ParseFailure(s + "int f(struct S v) { return v.n; }\nint main() { return f(0); }"),
            "unsupported: t.c:2:7: unsupported struct parameter of 'f'");
  EXPECT_EQ(ParseFailure("struct L { int v; struct L **next; };\nint main() { struct L l; l.v = 1; return 0; }"),
            "unsupported: t.c:2:26: unsupported use of 'l', a variable of struct L, which has a member that points to "
            "a pointer");
  EXPECT_EQ(ParseFailure("struct T;\nint main() { struct T t; t.x = 1; return 0; }"),
            "unsupported: t.c:2:26: unsupported use of 't', a variable of incomplete type 'struct T'");
  EXPECT_EQ(ParseFailure("struct D { int a; int a; };\nint main() { return 0; }"),
            "error: t.c:1:23: duplicate member 'a' in struct D");
  EXPECT_EQ(ParseFailure(s + "int main() { struct S v; return sizeof(struct S); }"),
            "unsupported: t.c:2:33: unsupported sizeof operand");
}

// `sizeof a` of an array declared with a constant size is its bytes, as gcc has it (the `sizeof a /
// sizeof a[0]` idiom); of a pointer, an array parameter or an array of variable size it is refused.
TEST(Parser, SizeofAnArrayIsItsBytes) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
long g[6];
int main() {
  int a[2 * 5];
  unsigned char c[] = {1, 2, 3};
  int n = 0;
  for (unsigned long i = 0; i < sizeof(a) / sizeof(a[0]); i++) { a[i] = i; n++; }
  int k = __VERIFIER_nondet_int();
  __VERIFIER_assert(n + sizeof c + sizeof(g) != k);
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{61}, {60}});
  EXPECT_EQ(testing::InterpretOn(p, {61}), Outcome::kError);
  EXPECT_EQ(ParseFailure("extern int __VERIFIER_nondet_int(void);\nint main() { int n = __VERIFIER_nondet_int();\n"
                         "int a[n]; return sizeof(a); }"),
            "unsupported: t.c:3:25: unsupported sizeof of 'a', a pointer or an array of variable size");
  EXPECT_EQ(ParseFailure("int f(int *p) { return sizeof p; }\nint main() { int a[4]; return f(a); }"),
            "unsupported: t.c:1:31: unsupported sizeof of 'p', a pointer or an array of variable size");
}

// `L: goto L;` keeps a run there forever, so it reaches no error: the statement, and a `goto L` elsewhere in the
// same function, are `assume(0)` (any other goto is lowered: gotos_test.cc). gcc runs the source (the harness stops a run that
// spins, as "blocked").
TEST(Parser, AGotoToALabelThatLoopsOnItselfStopsTheRun) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
void check(int v) {
  if (v > 9) goto STUCK;
  __VERIFIER_assert(v != 7);
  return;
STUCK:
  goto STUCK;
}
int main() {
  int i = __VERIFIER_nondet_int();
  if (i > 5) STUCK: goto STUCK;
  check(i + 5);
  __VERIFIER_assert(i != 4);
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{6}, {5}, {4}, {2}, {1}});
  EXPECT_EQ(testing::InterpretOn(p, {6}), Outcome::kBlocked);
  // The label is the function's own: main's STUCK does not make the callee's goto stuck.
  EXPECT_EQ(ParseFailure("void f(void) { goto STUCK; }\nint main() { f(); STUCK: goto STUCK; }"),
            "error: t.c:1:16: use of undeclared label 'STUCK'");
}

// Functions of the file are inlined; they must mean what C makes of them, so gcc runs the source itself.
TEST(Parser, InlinedFunctionsMeanWhatGccMakesOfThem) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void __VERIFIER_assume(int cond);
int g = 1;
void bound(int c) { if (!c) __VERIFIER_assume(0); }
int read_port(void) { int x = __VERIFIER_nondet_int(); return x; }
int twice(int v) { v = v * 2; return v; }
void kept(int a) { g = 0; __VERIFIER_assert(a != 7); }
void once(int a) { __VERIFIER_assert(a == a); }
void sees_globals(void) { __VERIFIER_assert(g != 2); }
int main() {
  int g = 2;
  int x = read_port();
  bound(x > -100 && x < 100);
  int y;
  y = twice(x);
  sees_globals();
  g = x;
  kept(g);
  once(__VERIFIER_nondet_int());
  __VERIFIER_assert(y == x + x);
  late(x);
  return 0;
}
void late(int v) { __VERIFIER_assert(v != 9); }
)";
  // 7: kept's argument is the value before its body writes the global; 9: a function defined after main;
  // 500: bound; the second value would fail `a == a` only if the call read two.
  std::vector<std::vector<long long>> runs;
  for (long long x : {0LL, 7LL, 9LL, -99LL, 500LL, -500LL}) runs.push_back({x, 3, 4});
  // gcc needs the prototype of late; the parser does not.
  const Program p = AgreesWithGcc(source, runs, "void late(int v);\n" + source);
  EXPECT_EQ(testing::InterpretOn(p, {7, 3, 4}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {9, 3, 4}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {5, 3, 4}), Outcome::kFinished);
}

// A return before the end of an inlined body skips the rest of it: out of nested loops, past the
// statements after an if, with the value it hands to the call's result.
TEST(Parser, InlinedEarlyReturnsMeanWhatGccMakesOfThem) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int find(int a[4], int n, int v) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 2; j++) {
      if (a[i] + j == v) return i;
    }
  }
  return -1;
}
int g = 0;
void bump(int k) {
  if (k < 0) return;
  g = g + k;
  if (k > 100) { g = -1; return; }
  g = g + 1;
}
int root_above(int n) {
  int i = 0;
  while (i < 100) {
    i++;
    if (i * i > n) return i;
  }
  return 0;
}
int main() {
  int a[4];
  for (int i = 0; i < 4; i++) a[i] = __VERIFIER_nondet_int();
  int v = __VERIFIER_nondet_int();
  int r = find(a, 4, v);
  bump(v);
  int e = root_above(v);
  __VERIFIER_assert(r != 2 && g != -1 && e != 3);
  return 0;
}
)";
  // r == 2 needs the first match at index 2 (the match at 3 must not overwrite it); g == -1 needs v > 100 and
  // bump to stop before its last line; e == 3 needs 4 < v <= 9 (root_above returns from inside its loop, which
  // would otherwise run on to 100). Each input below fails at most one of the three.
  const Program p = AgreesWithGcc(source, {{1, 1, 12, 12, 12}, {1, 1, 1, 12, 12}, {9, 9, 9, 9, 200},
                                           {9, 9, 9, 9, -1}, {9, 9, 9, 9, 7}, {9, 9, 9, 9, 10}, {0, 0, 0, 0, 0}});
  EXPECT_EQ(testing::InterpretOn(p, {1, 1, 12, 12, 12}), Outcome::kError);  // r == 2, not 3
  EXPECT_EQ(testing::InterpretOn(p, {9, 9, 9, 9, 200}), Outcome::kError);   // g == -1, not 0
  EXPECT_EQ(testing::InterpretOn(p, {9, 9, 9, 9, 7}), Outcome::kError);     // e == 3, not 100
  EXPECT_EQ(testing::InterpretOn(p, {1, 1, 1, 12, 12}), Outcome::kFinished);
}

// A call of a function with statements inside an expression that C evaluates for certain runs right before
// its statement, into a variable: in an if's condition (also inside a loop, each iteration), a declaration and
// an expression statement.
TEST(Parser, CallsInsideExpressionsRunBeforeTheirStatement) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int calls = 0;
int contains(int a[4], int n, int v) {
  calls = calls + 1;
  for (int i = 0; i < n; i++) {
    if (a[i] == v) return 1;
  }
  return 0;
}
int twice(int v) { int w = v + v; return w; }
int main() {
  int a[4];
  int n = 0;
  for (int k = 0; k < 4; k++) {
    int v = __VERIFIER_nondet_int();
    if (contains(a, n, v) != 1) {
      a[n] = v;
      n = n + 1;
    }
  }
  int d = twice(n) + 1;
  __VERIFIER_assert(twice(d) != 14 && calls == 4);
  return 0;
}
)";
  // n counts the distinct inputs; d = 2n + 1 and twice(d) == 14 needs n == 3 (four inputs, one repeated).
  const Program p = AgreesWithGcc(source, {{1, 2, 3, 4}, {1, 2, 2, 4}, {5, 5, 5, 5}, {1, 2, 3, 1}, {0, 7, 0, 7}});
  EXPECT_EQ(testing::InterpretOn(p, {1, 2, 2, 4}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {1, 2, 3, 4}), Outcome::kFinished);
  // A void function called in a branch of ?: (ldv-regression's `((s == 1) ? (0) : __blast_assert());`) runs
  // where that branch is taken; gcc refuses any use of its value.
  const Program blast = AgreesWithGcc(R"(
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
extern void reach_error(void);
int count = 0;
void __blast_assert(void) { ERROR: { reach_error(); abort(); } }
void note(int k) { count += k; }
int main() {
  int s = __VERIFIER_nondet_int();
  s > 0 ? note(s) : note(1);
  ((count >= 1) ? (0) : __blast_assert());
  ((s != 5) ? (0) : __blast_assert());
  return 0;
}
)", {{0}, {3}, {5}, {-5}});
  EXPECT_EQ(testing::InterpretOn(blast, {5}), Outcome::kError);
}

// Until the night of 2026-12-05 a loop condition or a `return` inside an inlined body hoisted its calls before
// the whole body, as did the `return` of a one-return function: `false` for these two safe programs.
TEST(Parser, CallsInALoopConditionOrAReturnOfAnInlinedBodyRunThere) {
  const std::string increment = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int g(int x) { int y = x; y = y + 1; return y; }
)";
  AgreesWithGcc(increment + R"(
int f(int n) { int i = 0; while (g(i) < n) i++; return i; }
int main() { int r = 0; r = f(__VERIFIER_nondet_int()); __VERIFIER_assert(r == 2); return 0; }
)", {{3}, {5}});
  const Program p = AgreesWithGcc(increment + R"(
int f(int a) { return g(a) + 1; }
int h(int a) { a = a * 2; return g(a) + f(a); }
int main() { int r = 2 * f(__VERIFIER_nondet_int()); __VERIFIER_assert(r == 10 && h(r) == 43); return 0; }
)", {{3}, {4}, {10}});
  EXPECT_EQ(testing::InterpretOn(p, {3}), Outcome::kFinished);
}

// C's assignments inside expressions: `x++`, `--x`, `a[i++] = v`, `x = y = e`, `(x += 2) * 3`, in loop
// conditions (run again before each test), right of && and ||, in a branch of ?:, with calls around them.
TEST(Parser, AssignmentsInsideExpressionsMeanWhatGccMakesOfThem) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void __VERIFIER_assume(int cond);
int counter = 0;
int next(void) { return counter++; }
int bump(int by) { counter += by; return counter; }
int twice(int v) { return v + v; }
int main() {
  int n = __VERIFIER_nondet_int();
  int m = __VERIFIER_nondet_int();
  __VERIFIER_assume(n >= 0 && n < 20);
  int a[20];
  int i = 0, k = n;
  while (k-- > 0) a[i++] = k * m;
  __VERIFIER_assert(i == n && k == -1);
  int j = 0, s = 0;
  while (j < n && a[j++] >= m) s++;
  __VERIFIER_assert(s != 3);
  unsigned char c = 250;
  int wraps = 0;
  do wraps += ++c == 0; while (c != 3);
  int x, y;
  x = y = m + 1;
  int z = (x += 2) * 3;
  __VERIFIER_assert(z == 3 * (m + 3) && y == m + 1 && wraps == 1);
  int t = m > 0 ? next() : bump(n);
  int u = (s > 2 || ++counter > 5) ? counter : -1;
  __VERIFIER_assert(t + u != 17);
  for (int q = 0; q++ < 3 && (x -= 1) > 0;) y += twice(__VERIFIER_nondet_int()) > 0;
  __VERIFIER_assert(x != m + 1 || y != m + 2);
  return 0;
}
)";
  // The asserts on i and k, z and y hold for every input (the semantics); s == 3 (n 3 and m 0, n 4 and m 1),
  // t + u == 17 (n 8, m -1: bump's 8 and the 9 that ++counter makes) and the for loop's y fail.
  const Program p = AgreesWithGcc(source, {{0, 0}, {3, 0}, {4, 1}, {5, 3}, {8, -1}, {8, 0}, {7, -1}, {19, 100},
                                           {2, -1, 1, 1, 1}, {6, 2, 0, -3, 5}, {4, -3, -1, -1, -1}});
  EXPECT_EQ(testing::InterpretOn(p, {8, -1}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {19, 100}), Outcome::kFinished);
}

TEST(Parser, AssignmentsInsideExpressionsThatCLeavesUnsequencedAreRefused) {
  const std::string refused = "unsupported assignment inside an expression to 'i', which the expression also reads "
                              "or writes elsewhere (C leaves the order unsequenced, or loopfuse cannot tell)";
  EXPECT_EQ(ParseFailure("int main() { int i = 0; int j = i++ + i; return 0; }"), "unsupported: t.c:1:34: " + refused);
  EXPECT_EQ(ParseFailure("int main() { int a[2]; int i = 0; a[i] = i++; return 0; }"),
            "unsupported: t.c:1:43: " + refused);
  EXPECT_EQ(ParseFailure("int main() { int i = 0; i = i++; return 0; }"), "unsupported: t.c:1:30: " + refused);
  EXPECT_EQ(ParseFailure("int main() { int i = 0, n = 3; int j = (i < n && i++) + i; return 0; }"),
            "unsupported: t.c:1:51: " + refused);
  // Sequenced by && and ?:, as C has them: accepted.
  EXPECT_EQ(ParseFailure("int main() { int i = 0, n = 3; int j = i < n && i++ < 2 ? i : -i; return 0; }"), "no error");
  EXPECT_EQ(ParseFailure("int x = 1;\nint y = x++;\nint main() { return 0; }"),
            "unsupported: t.c:2:10: unsupported assignment inside an expression that no statement runs (the "
            "initialiser of a global or a static, a constant expression)");
  EXPECT_EQ(ParseFailure("int main() { int a[2]; int x = (a = 0) != 0; return 0; }"),
            "unsupported: t.c:1:35: unsupported assignment to array 'a' inside an expression");
  // sizeof does not evaluate its operand.
  const Program p = AgreesWithGcc(R"(
extern void __VERIFIER_assert(int cond);
int main() { int i = 0; unsigned long s = sizeof(i++); __VERIFIER_assert(i == 0 && s == 4); return 0; }
)", {{}});
  EXPECT_EQ(testing::InterpretOn(p, {}), Outcome::kFinished);
}

TEST(Parser, AnArgumentThatNeedsNoCopyIsSubstituted) {
  // SV-COMP's helper as its tasks define it: the call becomes the if, with no parameter variable.
  const Program p = ParseText(R"(
void assume_abort_if_not(int cond) { if(!cond) {abort();} }
int main() { int n = __VERIFIER_nondet_int(); assume_abort_if_not(n < 10); __VERIFIER_assert(n < 10); return 0; }
)");
  EXPECT_EQ(p.vars.size(), 2u);  // n and the unused parameter
  const std::string c = PrintProgram(p);
  EXPECT_NE(c.find("if ((!(n < 10)))"), std::string::npos) << c;
  EXPECT_EQ(testing::InterpretOn(p, {20}), Outcome::kBlocked);
  EXPECT_EQ(testing::InterpretOn(p, {3}), Outcome::kFinished);
}

// A function with a value may end in a block whose last statement returns (CIL's output), or in a loop that
// only a return leaves: it never falls off its end.
TEST(Parser, AValueFunctionMayEndInABlockOrALoopThatReturns) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int f(int n) { { if (n > 3) { return n; } return -n; } }
int g(int n) { while (1) { if (n > 10) return n; n = n * 2 + 1; } }
int main() {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 100) return 0;
  int a = f(x), b = g(x);
  __VERIFIER_assert(a + b != 23);
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{1}, {4}, {12}, {0}, {-5}});
  EXPECT_EQ(testing::InterpretOn(p, {4}), Outcome::kError);
}

TEST(Parser, RecursiveCallsAreInlinedToABoundedDepth) {
  // SV-COMP's recursive-simple in small: one call a level (64 levels deep), two (12 levels), two functions
  // that call each other. Runs that stay within those depths are what gcc's are; one that goes deeper stops
  // at the cut, which tells nothing (kUndefined), and the clauses let the cut's check fail, so that no proof
  // passes it.
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int sum(int n, int m) { if (n <= 0) return m + n; return sum(n - 1, m + 1); }
int fibo(int n) { if (n < 1) return 0; else if (n == 1) return 1; else return fibo(n - 1) + fibo(n - 2); }
int odd(int n);
int even(int n) { if (n == 0) return 1; return odd(n - 1); }
int odd(int n) { if (n == 0) return 0; return even(n - 1); }
int main() {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 10) return 0;
  __VERIFIER_assert(sum(x, 3) == x + 3 && fibo(x) != 34 && even(x) == (x % 2 == 0));
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{0}, {1}, {5}, {8}, {10}});
  EXPECT_EQ(testing::InterpretOn(p, {9}), Outcome::kError);  // fibo(9) == 34
  // A call of another function in the body (half) does not make the recursion branch.
  const std::string deep = R"(
int half(int x) { return x / 2; }
int sum(int n) { if (n <= 0) return 0; return half(2 * n) + sum(n - 1); }
int main() { __VERIFIER_assert(sum(%d) == %d * (%d + 1) / 2); return 0; }
)";
  EXPECT_EQ(testing::InterpretOn(testing::ParseFilled(deep.c_str(), 63, 63, 63), {}), Outcome::kFinished);
  const Program too_deep = testing::ParseFilled(deep.c_str(), 64, 64, 64);
  EXPECT_EQ(testing::InterpretOn(too_deep, {}), Outcome::kUndefined);
  EXPECT_EQ(testing::SolveAny(too_deep, 5), SolveStatus::kUnsafe);
  // A recursive function that returns a pointer to an object (verifythis' trees): past the cut, any object or
  // null (until 2026-12-06 the cut's 1 / 0 made it an integer, refused as "a pointer ... as an integer").
  const Program trees = AgreesWithGcc(R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
struct node { int data; struct node *left, *right; };
struct node *tree(int depth) {
  if (depth <= 0 || __VERIFIER_nondet_int()) return 0;
  struct node *n = malloc(sizeof(struct node));
  n->data = depth;
  n->left = tree(depth - 1);
  n->right = tree(depth - 2);
  return n;
}
int size(struct node *t) { if (!t) return 0; return 1 + size(t->left) + size(t->right); }
int main() {
  struct node *t = tree(3);
  __VERIFIER_assert(size(t) != 4);
  return 0;
}
)", {{1}, {0, 1, 1}, {0, 0, 1, 1}, {0, 0, 0, 1}, {0, 0, 0, 0}});
  EXPECT_EQ(testing::InterpretOn(trees, {0, 0, 0, 0}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(trees, {0, 0, 0, 1}), Outcome::kFinished);
}

// Pointers to integer variables that move, compare and are stored, which the first reading refuses (there a
// pointer given `&x` is a name of x): the second reading has every such variable an object on the heap and
// every `int *` a pointer to such objects (ldv-regression's test01-17 and alias_of_return tasks). A program
// that the first reading takes keeps its scalars.
TEST(Parser, PointersToIntegerVariablesThatMoveAreObjectsOnTheHeap) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int g = 4;
int *gp;
int *pick(int c, int *x, int *y) { return c ? x : y; }
void redirect(int **pp, int *to) { *pp = to; }
void add(int *p, int k) { *p += k; }
int main() {
  int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int();
  int *p = &a, *q = 0;
  if (a > b) p = &b;
  *p = *p + 1;
  q = pick(a == 3, &a, &g);
  add(q, 2);
  redirect(&p, &g);
  gp = p;
  *gp += 10;
  __VERIFIER_assert(p == &g && gp == p && q != 0);
  __VERIFIER_assert(g == 14 + (a == 3 ? 0 : 2) || a == 3);
  int k = a;
  __VERIFIER_assert(k + b < 100 || b > 50);
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{0, 0}, {3, 1}, {5, 2}, {60, 70}, {2, 60}, {2, 4}});
  EXPECT_FALSE(p.heap_objects.empty());
  EXPECT_EQ(testing::InterpretOn(p, {2, 4}), Outcome::kError);
  const Program first = ParseText("void add(int *p) { *p += 1; }\nint main() { int x = 0; add(&x); return x; }");
  EXPECT_TRUE(first.heap_objects.empty());
  // Refused by both readings: the first reading's reason.
  EXPECT_EQ(ParseFailure("int main() { int a; int *p = &a; int **pp = &p; int **qq = pp; return 0; }"),
            "unsupported: t.c:1:46: unsupported use of 'p', a pointer (only '*p' reads and writes what it points "
            "to)");
}

TEST(Parser, APointerParameterGivenAnAddressIsTheVariable) {
  // Out-parameters: `*p` reads and writes the variable or the cell whose address the call passed (swapped
  // with itself too, passed on to another call, of a global, a struct's member; a cell at the index the call
  // computed, which the callee then changes), and `*a` is a[0].
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
void swap(int *a, int *b) { int t = *a; *a = *b; *b = t; }
void bump(int *p, int k) { (*p)++; *p += k; }
int get(int *p) { return *p; }
void twice(int *q) { bump(q, 1); bump(q, 1); }
int g, k;
struct S { int m; };
void at(int *p) { k = 3; *p = 5; }
int main() {
  int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int();
  swap(&x, &y);
  swap(&x, &x);
  twice(&x);
  int a[4];
  *a = x;
  a[1] = 7;
  a[2] = 0;
  a[3] = 0;
  swap(&a[0], &a[1]);
  twice(&a[0]);
  bump(&g, a[1]);
  k = 2;
  at(&a[k]);
  struct S s;
  s.m = x;
  bump(&s.m, 2);
  int i = 0;
  while (i < 3) { bump(&y, i); i++; }
  __VERIFIER_assert(get(&g) != 10 && y != 8 && get(&a[0]) == 11 && a[2] == 5 && a[3] == 0 && s.m == x + 3);
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{1, 2}, {2, 0}, {0, 5}, {-4, -5}});
  EXPECT_EQ(testing::InterpretOn(p, {2, 0}), Outcome::kError);  // y = 2 + 1 + 2 + 3
  EXPECT_EQ(testing::InterpretOn(p, {0, 5}), Outcome::kError);  // g = 1 + 5 + 4
  // The pointer itself is no value in the first reading; compared or copied it is one to an object on the heap
  // (the second reading, PointersToIntegerVariablesThatMoveAreObjectsOnTheHeap); moved, given to an integer
  // parameter, or given the address of another type it is refused.
  const auto refused = [](const std::string& function, const std::string& type = "int") {
    return ParseFailure(function + "\nint main() { " + type + " x = 0; f(&x); return 0; }");
  };
  EXPECT_EQ(refused("void f(int *p) { if (p == 0) return; }"), "no error");
  EXPECT_EQ(refused("void f(int *p) { *p++ = 1; }"), "unsupported: t.c:1:20: unsupported pointer arithmetic on 'p'");
  EXPECT_EQ(refused("void g(int v) { v++; } void f(int *p) { g(p); }"),
            "unsupported: t.c:1:41: unsupported argument 1 of 'g': an address, to a parameter that is no pointer");
  EXPECT_EQ(refused("void f(int *p) { *p = 1; }", "unsigned"),
            "unsupported: t.c:2:30: unsupported argument 1 of 'f': the address of a variable of another type");
  // A local pointer initialised with an address is a name of its variable or cell, as a parameter is (in a loop,
  // of the cell at each iteration's index).
  const std::string locals = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int main() {
  int x = __VERIFIER_nondet_int(), a[4] = {0};
  int *p = &x, *q = &a[1];
  *p = *p + 1;
  for (int i = 0; i < 4; i++) { int *c = &a[i]; *c = i; }
  *q = *q + 10;
  __VERIFIER_assert(a[1] == 11 && a[3] == 3 && x != 0);
  return 0;
}
)";
  EXPECT_EQ(testing::InterpretOn(AgreesWithGcc(locals, {{-1}, {0}, {5}}), {-1}), Outcome::kError);
  EXPECT_EQ(ParseFailure("int main() { int x = 0; int *p = &x; p = &x; return 0; }"), "no error");
  EXPECT_EQ(ParseFailure("int main() { int x = 0; int y = &x; return 0; }"),
            "unsupported: t.c:1:33: unsupported operator '&'");
  EXPECT_EQ(ParseFailure("int h(int *p) { return 0; }\nint main() { int x; h(&x + 1); return 0; }"),
            "unsupported: t.c:2:23: unsupported operator '&' (only '&v' and '&a[i]' as a whole argument)");
}

// A pointer into an array: declared from the array, a cell's address or another pointer, moved by ++, --, +=,
// -= and assignment, read through `*p`, `p[i]` and `*(p + i)`, compared and subtracted; a pointer parameter
// that the function moves, given the array's name, is a pointer to its first cell. Checked against gcc.
TEST(Parser, APointerIntoAnArrayMovesWithinIt) {
  const std::string walks = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
void fill(int *p, int n, int v) { while (n-- > 0) *p++ = v; }
int sum(const int *b, const int *e) { int s = 0; for (; b != e; ++b) s += *b; return s; }
void shift(int *d, int *s, int n) { for (int i = 0; i < n; i++) d[i] = *(s + i); }
int main() {
  int n = __VERIFIER_nondet_int(), k = __VERIFIER_nondet_int();
  if (n < 1 || n > 8 || k < 0 || k >= n) return 0;
  int a[10], b[10];
  fill(a, n, 1);
  int *p = a + k, *q = &a[0], *r = q + 1;
  *p = 5;
  p += 2;
  p -= 1;
  --p;
  p++;
  p = (a + k);
  __VERIFIER_assert(*p == 5 && p[0] == 5 && *(q + k) == 5 && *(a + k) - 1 == 4 && &p[1] - a == k + 1);
  __VERIFIER_assert(sum(a, a + n) == n + 4 && p - q == k && (q < p) == (k > 0) && r - 1 == q);
  __VERIFIER_assert(p - a - 1 == k - 1 && p - a + 1 == k + 1 && r + 1 - q - 2 == 0 && (p - q) * 2 == 2 * k);
  __VERIFIER_assert((a + k) - q == k && ((q + 1)) - 1 - a == 0 && (p - q) + 1 == k + 1 && *(a + (p - q)) == 5);
  __VERIFIER_assert(*(p + 1 - (1)) == 5 && (p - (q)) == k && *(r - (r - q)) == 1 + 4 * (k == 0));
  shift(b, &a[1], n - 1);
  fill(b + n - 1, 1, 7);
  int *w = b;
  for (int *e = b + n; w < e; w++) *w = *w + 1;
  __VERIFIER_assert(w == b + n && b[n - 1] == 8 && sum(b, w) == sum(a + 1, a + n) + n + 7);
  int *c = b;
  *c++ = 3;
  *c-- = 4;
  *c++;
  c--;
  __VERIFIER_assert(b[0] == 3 && b[1] == 4 && c == b);
  int *u, t = 0;
  for (u = a; u < a + n; u++) t += *u;
  u = &a[n - 1];
  __VERIFIER_assert(t == n + 4 && *u == (k == n - 1 ? 5 : 1) && u - q == n - 1);
  int *m = b + n;
  for (int i = 0; i < n; i++) *--m = i;
  int *r2 = b, s2 = *r2;
  while (r2 < b + n - 1) s2 += *++r2;
  __VERIFIER_assert(m == b && b[0] == n - 1 && s2 == n * (n - 1) / 2 && r2 == m + n - 1);
  int *h = malloc(4 * sizeof(int));
  *h++ = n;
  *h++ = k;
  h -= 2;
  __VERIFIER_assert(h[0] + h[1] == n + k && *(h + 1) == k);
  return 0;
}
)";
  std::vector<std::vector<long long>> runs;
  for (long long n : {1, 2, 5, 8}) {
    for (long long k : {0LL, n / 2, n - 1}) runs.push_back({n, k});
  }
  FinishesOnEveryRun(walks, runs);
  const std::string refusal = "a pointer into 'a' as a value (only '*p', 'p[i]', and comparing and subtracting "
                              "pointers into the same array)";
  EXPECT_EQ(ParseFailure("int main() { int a[2], b[2]; int *p = a; p = b + 1; return 0; }"),
            "unsupported: t.c:1:46: unsupported pointer 'p' moved to another array");
  EXPECT_EQ(ParseFailure("int main() { int a[2], b[2]; int *p = a; return p < b; }"),
            "unsupported: t.c:1:51: unsupported operator '<' of pointers into different arrays");
  EXPECT_EQ(ParseFailure("int main() { int a[2]; int *p = a; return p != 1; }"),
            "unsupported: t.c:1:45: unsupported operator '!=' of a pointer and an integer");
  EXPECT_EQ(ParseFailure("int main() { int a[2]; int *p = a; int x = p + 1; return 0; }"),
            "unsupported: t.c:1:44: unsupported use of " + refusal);
  EXPECT_EQ(ParseFailure("int main() { int a[2]; int *p = a; *p + 1; return 0; }"), "no error");  // a value unused
  EXPECT_EQ(ParseFailure("int main() { int a[2]; int *p = a; p = 0; return 0; }"),
            "unsupported: t.c:1:40: unsupported value of pointer 'p' (only a pointer into its array, as 'a + i' or "
            "'&a[i]')");
  EXPECT_EQ(ParseFailure("int main() { int a[2], b[2]; int *p; if (a[0]) p = a; else p = b; return 0; }"),
            "unsupported: t.c:1:64: unsupported pointer 'p' moved to another array");
  EXPECT_EQ(ParseFailure("int main() { int a[2]; int *p; a[0] = *p; p = a; return 0; }"),
            "unsupported: t.c:1:40: unsupported pointer 'p' read before an assignment points it into an array");
  EXPECT_EQ(ParseFailure("int main() { int a[2]; char *p = a; return 0; }"),
            "unsupported: t.c:1:34: unsupported pointer 'p' given a pointer into an array of another type");
  EXPECT_EQ(ParseFailure("int main() { int a[2]; int *p = a; int x = p++ < a; return 0; }"),
            "unsupported: t.c:1:44: unsupported use of 'p', a pointer into an array (only '*p', 'p[i]', moving it "
            "within the array, and comparing and subtracting pointers into the same array)");
}

// A string literal initialises an array of char, or is an array of its own that a pointer points into.
TEST(Parser, StringLiteralsAreArraysOfChar) {
  const std::string strings = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
char *greeting = "hi\n";
int length(const char *s) { int n = 0; while (*s++) n++; return n; }
int main() {
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k > 3) return 0;
  char s[] = "a\x41\101" "b";
  char t[8] = "xy", u[3] = "xyz";
  unsigned char w[] = "\xff\0z\x041";
  const char *v = "hello";
  __VERIFIER_assert(sizeof s == 5 && s[k] == (k == 0 ? 'a' : k < 3 ? 'A' : 'b') && t[k + 2] == 0 && u[2] == 'z');
  __VERIFIER_assert(w[0] == 255 && w[1] == 0 && w[2] == 'z' && w[3] == 'A' && sizeof w == 5 && v[4] == 'o');
  __VERIFIER_assert(length(v) == 5 && length(greeting) == 3 && length(s + k) == 4 - k && greeting[2] == 10);
  __VERIFIER_assert(k < 4 && "k is below 4" && !!"always" && ("a" "b" || k) && (k != 9 || !"never"));
  return 0;
}
)";
  std::vector<std::vector<long long>> runs = {{0}, {1}, {2}, {3}};
  FinishesOnEveryRun(strings, runs);
  EXPECT_EQ(ParseFailure("int main() { int a[] = \"ab\"; return 0; }"),
            "unsupported: t.c:1:24: unsupported string initialiser of 'a', not an array of char");
  EXPECT_EQ(ParseFailure("int main() { char a[] = L\"ab\"; return 0; }"),
            "unsupported: t.c:1:25: unsupported string literal L\"ab\" with a prefix");
  EXPECT_EQ(ParseFailure("int main() { char a[] = \"\\x100\"; return 0; }"),
            "unsupported: t.c:1:25: unsupported string literal \"\\x100\"");
  EXPECT_EQ(ParseFailure("int main() { int k = \"ab\"[1]; return 0; }"),
            "unsupported: t.c:1:22: unsupported string literal as a value");
  EXPECT_EQ(ParseFailure("int main() { int k = 1 && \"ab\" == 0; return 0; }"),
            "unsupported: t.c:1:27: unsupported string literal as a value");
}

// calloc's cells are zero, malloc's and alloca's fresh: each an array of its own; free does nothing.
TEST(Parser, AllocatorsMakeArraysAndFreeDoesNothing) {
  const std::string blocks = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *calloc(unsigned long, unsigned long);
extern void free(void *);
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 6) return 0;
  int *z = calloc(n, sizeof(int));
  long *w = (long *)calloc(n + 1, sizeof(long));
  int *y = __builtin_alloca(n * sizeof(int));
  for (int i = 0; i < n; i++) y[i] = z[i] + i + w[i + 1];
  int s = 0;
  for (int i = 0; i < n; i++) s += y[i];
  char *c;
  c = calloc(3, 2);
  __VERIFIER_assert(s == n * (n - 1) / 2 && c[5] == 0 && w[n] == 0);
  free((void *)w);
  int *q = z + 1;
  free(q - 1);
  return 0;
}
)";
  std::vector<std::vector<long long>> runs = {{1}, {2}, {6}};
  FinishesOnEveryRun(blocks, runs);
  EXPECT_EQ(ParseFailure("extern int *f(void); int main() { int *p; p = (int *)f(); return 0; }"),
            "unsupported: t.c:1:54: unsupported pointer expression (only malloc, calloc and alloca results are "
            "arrays)");
  EXPECT_EQ(ParseFailure("extern void free(void *); int main() { int x; free(&x); return 0; }"),
            "unsupported: t.c:1:47: unsupported call of 'free' of an address (only of what an allocation made)");
}

// A pointer into an array is never null (SV-COMP's allocations never fail): `p == NULL`, `!p`, `if (p)` and
// `p && ...` are constants; one declared without a value, null until something is allocated, is refused.
TEST(Parser, APointerIntoAnArrayIsNeverNull) {
  const std::string checks = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
extern void abort(void);
#define NULL ((void *)0)
int g[3];
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 4) return 0;
  int *a = malloc(n * sizeof(int));
  if (a == NULL) abort();
  if (!a) return 1;
  int *p = a, *e = a + n;
  while (p && p < e) *p++ = 2;
  if (p) *(p - 1) = 3;
  int t = 0;
  do t += *--p; while (p != a && p != 0);
  __VERIFIER_assert(t == 2 * n + 1 && !g == 0 && (e != (int *)0) && (a == 0 || a[0] > 1));
  __VERIFIER_assert(NULL != a + 1 && (0 == e) + 1 == 1 && !(NULL == p));
  return 0;
}
)";
  std::vector<std::vector<long long>> runs = {{1}, {2}, {4}};
  FinishesOnEveryRun(checks, runs);
  EXPECT_EQ(ParseFailure("extern void *malloc(unsigned long); int *h;\n"
                         "int main() { h = malloc(4); if (h == 0) return 1; h[1] = 0; return 0; }"),
            "unsupported: t.c:2:35: unsupported comparison with null of 'h', a pointer declared without a value (null "
            "until something is allocated for it)");
}

// Objects on the heap: pointers to structs and to integers that malloc made, in variables, arrays and members
// (a list built and walked, nested members, calloc's zeros, null as 0, NULL of <stdlib.h> and `(T *)0`, a choice
// between pointers, `*p->count`), against gcc.
TEST(Parser, PointersToObjectsOnTheHeapAreObjectNumbers) {
  const std::string list = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
extern void *calloc(unsigned long, unsigned long);
extern void free(void *);
#include <stdlib.h>
struct inner { short x; unsigned char y; };
struct node { int data; struct inner in; struct node *next; int *count; };
struct node *head;
struct node *slots[4];
int *cells[3];
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 5) return 0;
  int d = __VERIFIER_nondet_int();
  for (int i = 0; i < n; i++) {
    struct node *p = (struct node *)malloc(sizeof(struct node));
    p->data = d + i;
    p->in.x = 70000 + i;
    p->in.y = 300;
    p->next = head;
    p->count = calloc(1, sizeof(int));
    *p->count += i;
    head = p;
  }
  int sum = 0, len = 0;
  struct node *q = head;
  while (q != NULL) {
    sum += q->data - d;
    len++;
    __VERIFIER_assert(q->in.y == 44 && *q->count == q->data - d && q->in.x == (short)(70000 + q->data - d));
    q = q->next;
  }
  __VERIFIER_assert(len == n && sum == n * (n - 1) / 2 && q == 0);
  struct node *z = calloc(1, sizeof *z);
  __VERIFIER_assert(z->next == 0 && z->data == 0 && !z->count && z->in.x == 0 && z != head);
  slots[1] = n > 2 ? head : z;
  __VERIFIER_assert((slots[1] == z) == (n <= 2) && slots[0] == NULL && slots[1] != 0);
  cells[2] = malloc(sizeof(int));
  *cells[2] = 7;
  int *more[2];
  more[0] = cells[2];
  __VERIFIER_assert(*cells[2] == 7 && cells[0] == 0 && cells[2] != cells[0] && *more[0] == 7);
  if (head) head->next = (struct node *)0;
  __VERIFIER_assert(n == 0 || (head->next == NULL && head->data == d + n - 1));
  (*z).in.y = 5;
  (*z).data += (*z).in.y;
  (*z).count = malloc(sizeof(int));
  (*(*z).count) = 9;
  __VERIFIER_assert(z->data == 5 && (*z).in.y == 5 && (*(z)).next == 0 && *z->count == 9);
  struct node **zp = &z;
  free(*zp);
  free((void *)cells[2]);
  __VERIFIER_assert(n != 4);
  return 0;
}
)";
  std::vector<std::vector<long long>> runs;
  for (long long n : {0, 1, 2, 3, 4, 5}) runs.push_back({n, 40});
  runs.push_back({3, -2147483647});
  const Program p = AgreesWithGcc(list, runs);
  EXPECT_EQ(testing::InterpretOn(p, {4, 1}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {5, 1}), Outcome::kFinished);
  const std::string calls = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
extern void *calloc(unsigned long, unsigned long);
struct node { int v; struct node *next; };
typedef struct node *List;
struct node *push(struct node *h, int v) {
  struct node *n = malloc(sizeof(struct node));
  n->v = v;
  n->next = h;
  return n;
}
struct node *single(int v) { return push(0, v); }
struct node *blank(void) { return calloc(1, sizeof(struct node)); }
int length(List h) { int k = 0; while (h) { k++; h = h->next; } return k; }
List last(List h) { List p = (List)0; while (h != p) { p = h; h = h->next ? h->next : p; } return p; }
struct node *find(struct node *h, int v) {
  for (; h != 0; h = h->next) if (h->v == v) return h;
  return 0;
}
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 4) return 0;
  struct node *h = 0;
  for (int i = 0; i < n; i++) h = push(h, 10 * i);
  struct node *f = find(h, 10), *one = single(n), *b = blank();
  __VERIFIER_assert(one->v == n && one->next == 0 && b->v == 0 && b->next == 0 && b != one);
  List t = last(h);
  __VERIFIER_assert((n == 0 || t->v == 0) && (n > 0 || t == 0) && sizeof(List) == sizeof(void *));
  __VERIFIER_assert(length(h) == n && (n < 2) == (f == 0) && (f == 0 || f->v == 10) && length(0) == 0);
  return 0;
}
)";
  FinishesOnEveryRun(calls, {{0}, {1}, {2}, {4}});
  // A pointer to a pointer to objects given an address (`&head`, `&a[i]`, `&p->next`) names that variable or cell.
  const std::string addresses = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
typedef struct node { int v; struct node *next; } *List;
void push(struct node **h, int v) { struct node *n = malloc(sizeof *n); n->v = v; n->next = *h; *h = n; }
void push_twice(List *slot, int v) { push(slot, v); push(slot, v + 1); }
int main() {
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k > 3) return 0;
  struct node *head = 0;
  push(&head, 1);
  for (int i = 0; i < k; i++) push(&head, 2);
  push_twice(&head->next, 3);
  struct node *arr[2];
  arr[1] = 0;
  push(&arr[1], 9);
  struct node **pp = &head;
  (*pp)->v += 10;
  List *q = &arr[1];
  __VERIFIER_assert(head->next->v == 4 && head->next->next->v == 3 && arr[1]->v == 9 && *pp == head && !(*q)->next);
  __VERIFIER_assert(k == 0 ? head->v == 11 : head->v == 12);
  return 0;
}
)";
  FinishesOnEveryRun(addresses, {{0}, {1}, {3}});
  // An array of structs passed by name is the callee's too, as an array is (array-lopstr16's `init(a, SIZE)`).
  const std::string arrays = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
typedef struct P { int n; struct P *link; } P;
void fill(P a[], int k) { for (int i = 0; i < k; i++) { a[i].n = i * 3; a[i].link = 0; } }
int total(struct P *a, int k) { int t = 0; for (int i = 0; i < k; i++) t += a[i].n; return t; }
int main() {
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k > 8) return 0;
  P arr[8];
  fill(arr, k);
  if (k > 1) arr[1].link = malloc(sizeof(struct P));
  __VERIFIER_assert(total(arr, k) == 3 * k * (k - 1) / 2 && (k < 2 || arr[1].link != 0) && (k < 1 || !arr[0].link));
  return 0;
}
)";
  FinishesOnEveryRun(arrays, {{0}, {1}, {2}, {8}});
  EXPECT_EQ(ParseFailure("struct P { int n; };\nint get(struct P *p) { return 0; }\n"
                         "int main() { struct P s; s.n = 1; return get(s); }"),
            "unsupported: t.c:3:46: unsupported struct 's' passed whole (only an array of structs)");
  // Following null, or a pointer never set, has no meaning in C (a real run crashes there): the run stops there,
  // undefined, and an error behind it is not reported (forester-heap's sll-01-2 gave a `false` through one).
  const Program null = ParseText(R"(extern void *malloc(unsigned long);
struct N { struct N *next; int d; };
int main() {
  struct N *p = malloc(sizeof(struct N)), *r;
  p->next = 0;
  struct N *q = p->next;
  if (__VERIFIER_nondet_int()) r->d = 1;
  if (q->d == 5) reach_error();
  return 0;
})");
  EXPECT_EQ(testing::InterpretOn(null, {0, 5}), Outcome::kUndefined);
  EXPECT_EQ(testing::InterpretOn(null, {1, 7}), Outcome::kUndefined);
  const Verdict through_null = Verify(null, VerifyOptions{30, true});
  EXPECT_EQ(through_null.verdict, "unknown") << through_null.reason;
  // What malloc gives is arbitrary until written: a run may find any value there.
  const Program fresh = ParseText(R"(extern void *malloc(unsigned long);
struct S { int n; struct S *next; };
int main() { struct S *s = malloc(sizeof(struct S)); if (s->n == 5 && s->next == 0) reach_error(); return 0; })");
  EXPECT_EQ(testing::InterpretOn(fresh, {5, 0}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(fresh, {4, 0}), Outcome::kFinished);
}

// A pointer to an object is only stored, compared with == and != and followed: anything else is refused.
TEST(Parser, PointersToObjectsAreNeverIntegers) {
  const std::string s = "extern void *malloc(unsigned long);\nstruct S { int n; struct S *next; };\n";
  const std::string m = "int main() { struct S *p = malloc(sizeof(struct S)), *q = p; ";
  EXPECT_EQ(ParseFailure(s + m + "if (p + 1 == q) return 1; return 0; }"),
            "unsupported: t.c:3:68: unsupported operator '+' on a pointer to an object (only == and !=)");
  EXPECT_EQ(ParseFailure(s + m + "if (p < q) return 1; return 0; }"),
            "unsupported: t.c:3:68: unsupported operator '<' on a pointer to an object (only == and !=)");
  EXPECT_EQ(ParseFailure(s + m + "if (p == 8) return 1; return 0; }"),
            "unsupported: t.c:3:68: unsupported comparison of a pointer to an object with an integer");
  EXPECT_EQ(ParseFailure(s + m + "long x = (long)p; return 0; }"),
            "unsupported: t.c:3:77: unsupported use of a pointer to an object on the heap as an integer");
  EXPECT_EQ(ParseFailure(s + m + "p++; return 0; }"),
            "unsupported: t.c:3:63: unsupported operator '++' on a pointer to an object (it is never moved)");
  EXPECT_EQ(ParseFailure(s + m + "if (*p) return 1; return 0; }"),
            "unsupported: t.c:3:66: unsupported '*' of a pointer to a struct as a whole (only its members: '->', "
            "'(*p).m')");
  EXPECT_EQ(ParseFailure(s + m + "int x = 0; (*&x).n = 1; return 0; }"),
            "unsupported: t.c:3:75: unsupported operator '&'");
  EXPECT_EQ(ParseFailure(s + m + "p->next[1].n = 1; return 0; }"),
            "unsupported: t.c:3:69: unsupported indexing of a non-array");
  EXPECT_EQ(ParseFailure(s + m + "int x; p = &x; return 0; }"),
            "unsupported: t.c:3:73: unsupported operator '&'");
  EXPECT_EQ(ParseFailure(s + m + "p = 1; return 0; }"),
            "unsupported: t.c:3:66: unsupported value of a pointer to an object (only null, an allocation or such a "
            "pointer)");
  EXPECT_EQ(ParseFailure(s + "struct T { int k; };\n" + m + "struct T *t = p; return 0; }"),
            "unsupported: t.c:4:76: unsupported pointer to objects of another type (struct S, not struct T)");
  EXPECT_EQ(ParseFailure(s + m + "p = malloc(f()); return 0; }"),
            "unsupported: t.c:3:73: unsupported size of an allocation that calls a function or assigns");
  EXPECT_EQ(ParseFailure(s + "int count(void) { return 1; }\nint main() { struct S *p = count(); return 0; }"),
            "unsupported: t.c:4:28: unsupported call of 'count', which returns no pointer to struct S");
  EXPECT_EQ(ParseFailure(s + "struct S *make(int k) { return k; }\nint main() { struct S *p = make(1); return 0; }"),
            "unsupported: t.c:3:32: unsupported value of a pointer to an object (only null, an allocation or such a "
            "pointer)");
  EXPECT_EQ(ParseFailure(s + m + "int x; struct S **pp = &x; return 0; }"),
            "unsupported: t.c:3:85: unsupported address given to 'pp' (only of a pointer to struct S)");
  EXPECT_EQ(ParseFailure(s + m + "struct S **pp = &p; pp = &q; return 0; }"),
            "unsupported: t.c:3:82: unsupported use of 'pp', a pointer (only '*pp' reads and writes what it points "
            "to)");
  EXPECT_EQ(ParseFailure(s + "struct U;\nint main() { struct U *u = calloc(1, 4); return 0; }"),
            "unsupported: t.c:4:28: unsupported object of the incomplete type 'struct U'");
}

// A function that returns a pointer into an array: each call's result is a pointer into that array.
TEST(Parser, AFunctionReturnsAPointerIntoAnArray) {
  const std::string calls = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int *find(int *p, int n, int k) { int *e = p + n; while (p < e && *p != k) p++; return p; }
int *middle(int *a, int n) { if (n < 2) return a; return &a[n / 2]; }
int *skip(int *p) { return p + 1; }
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 5) return 0;
  int k = __VERIFIER_nondet_int();
  if (k < -1 || k > 6) return 0;
  int a[6];
  for (int i = 0; i < n; i++) a[i] = i;
  int *r = find(a, n, k);
  int *m;
  m = middle(a, n);
  r = skip(r);
  find(a, n, 0);
  __VERIFIER_assert(r - a == (k >= 0 && k < n ? k : n) + 1 && m - a == n / 2 * (n >= 2));
  return 0;
}
)";
  std::vector<std::vector<long long>> runs;
  for (long long n : {1, 2, 5}) {
    for (long long k : {-1LL, 0LL, n - 1, n + 1}) runs.push_back({n, k});
  }
  FinishesOnEveryRun(calls, runs);
  EXPECT_EQ(ParseFailure("int g[2], h[2];\nint *pick(int c) { if (c) return g; return h; }\n"
                         "int main() { int *p = pick(1); return 0; }"),
            "unsupported: t.c:2:44: unsupported 'pick' returning pointers into different arrays");
  EXPECT_EQ(ParseFailure("int g[2];\nint *first(void) { return g; }\nint main() { int x = first() - g; return 0; }"),
            "unsupported: t.c:3:22: unsupported call of 'first', which returns a pointer, inside an expression (only "
            "as the value of a pointer: 'p = first(...);')");
  EXPECT_EQ(ParseFailure("int g[2];\nint *none(void) { return 0; }\nint main() { int *p = none(); p[1] = 0; "
                         "return 0; }"),
            "unsupported: t.c:2:26: unsupported value returned by 'none' (only a pointer into an array)");
}

// A global pointer into a global array or into one of main's (verisec's NetBSD glob tasks point one at a
// buffer of main's and read it in a function): C starts it null, so a read before an assignment is refused.
TEST(Parser, AGlobalPointerIntoAnArrayMovesWithinIt) {
  const std::string walks = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int a[6];
int *g, *m;
int *h = a + 2, *e = &a[5];
void put(int v) { *g++ = v; }
int below(void) { return e - g; }
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 4) return 0;
  int buf[4];
  g = a;
  for (int i = 0; i < n; i++) put(i + 1);
  __VERIFIER_assert(g - a == n && below() == 5 - n && *h == (n > 2 ? 3 : 0) && h[-1] == (n > 1 ? 2 : 0));
  h++;
  m = buf + 1;
  *m = 9;
  __VERIFIER_assert(buf[1] == 9 && *(h - 1) == a[2] && h - a == 3);
  return 0;
}
)";
  std::vector<std::vector<long long>> runs = {{0}, {1}, {2}, {3}, {4}};
  FinishesOnEveryRun(walks, runs);
  EXPECT_EQ(ParseFailure("int a[2], b[2]; int *g; void f(void) { g = b; } int main() { g = a; f(); return 0; }"),
            "unsupported: t.c:1:44: unsupported pointer 'g' moved to another array");
  EXPECT_EQ(ParseFailure("int a[2]; int *g; int main() { int x = *g; g = a; return 0; }"),
            "unsupported: t.c:1:41: unsupported pointer 'g' read before an assignment points it into an array");
}

TEST(Parser, AValueReadPastTheEndOfItsFunctionIsUndefined) {
  // C leaves the value of a call whose body ends without a return undefined where the caller reads it: the run
  // stops there (kUndefined), and no proof passes it. Until 2026-12-07 refused ("ends without returning a
  // value"), which left SV-COMP's Addition tasks, three ifs one of which returns, unread.
  const char* kFallsOff = "int f(int n) { while (n) { return 1; } }\n"
                          "int main() { int x = f(%d); __VERIFIER_assert(x == 1); return 0; }";
  EXPECT_EQ(testing::InterpretOn(testing::ParseFilled(kFallsOff, 3), {}), Outcome::kFinished);
  EXPECT_EQ(testing::InterpretOn(testing::ParseFilled(kFallsOff, 0), {}), Outcome::kUndefined);
  EXPECT_EQ(testing::SolveAny(testing::ParseFilled(kFallsOff, 0), 5), SolveStatus::kUnsafe);
  EXPECT_EQ(testing::SolveAny(testing::ParseFilled(kFallsOff, 3), 5), SolveStatus::kSafe);
}

TEST(Parser, CallsThatCannotBeInlinedAreRefusedWithTheReason) {
  // Inside an expression that no statement runs (until the night of 2026-12-05 also right of && or ||, in a
  // branch of ?: and in a loop's condition, which now run the call where C evaluates it).
  EXPECT_EQ(ParseFailure("int f(int n) { n = n + 1; return n; }\nint x = 1 && f(1);\nint main() { return 0; }"),
            "unsupported: t.c:2:14: unsupported call of 'f' inside an expression that no statement runs (the "
            "initialiser of a global or a static, a constant expression): inlined there only where the function's "
            "body is one 'return' without assignments");
  EXPECT_EQ(ParseFailure("int f(int n) { return n + n; }\nint x = f(__VERIFIER_nondet_int()) + 1;\nint main() { }"),
            "unsupported: t.c:2:9: unsupported argument of 'f' that reads an input, inside an expression");
  EXPECT_EQ(ParseFailure("void f(int *p) { }\nint main() { int x; f(x); return 0; }"),
            "unsupported: t.c:2:21: unsupported argument 1 of 'f': an array parameter takes an array's name only");
  EXPECT_EQ(ParseFailure("void f(int p) { }\nint main() { int a[2]; f(a); return 0; }"),
            "unsupported: t.c:2:24: unsupported argument 1 of 'f': an integer parameter given an array");
  EXPECT_EQ(ParseFailure("void f(char p[]) { }\nint main() { int a[2]; f(a); return 0; }"),
            "unsupported: t.c:2:24: unsupported argument 1 of 'f': an array of another cell type");
  EXPECT_EQ(ParseFailure("int **f(void) { return 0; }\nint main() { f(); return 0; }"),
            "unsupported: t.c:2:14: unsupported call of 'f': it returns a pointer");
  // A function that no call reaches is never parsed.
  EXPECT_NO_THROW(ParseText("int f(int *p) { return *p; } int main() { return 0; }"));
  EXPECT_THROW(ParseText("void f(int a) { } int main() { f(1, 2); return 0; }"), common::InputError);
}

TEST(Parser, InliningStopsAtTheTimeLimitAndALimitIsNotReadAgain) {
  // SV-COMP's Primes in small: each level of one recursion runs another, 64 levels each, to 10 000 inlined
  // calls, which took 4.5 s (Release) and then as long again in the second reading with integers on the heap.
  const std::string source = R"(
int multiple_of(int n, int m) { if (m <= 0 || n < 0) return 0; if (n == 0) return 1; return multiple_of(n - m, m); }
int is_prime_(int n, int m) {
  if (m <= 1) return 1;
  if (multiple_of(n, m)) return 0;
  return is_prime_(n, m - 1);
}
int main() { int n = __VERIFIER_nondet_int(); __VERIFIER_assert(is_prime_(n, n - 1) || n > 3); return 0; }
)";
  try {
    Parse("t.c", source, DataModel::kLP64, false, 0);
    ADD_FAILURE() << "parsed within no time";
  } catch (const LimitError& e) {
    EXPECT_EQ(std::string(e.what()),
              "time-out (parsing and inlining stopped after 0.00 s at t.c:8:65: a call; inlined calls: 1)");
  }
  EXPECT_THROW(Parse("t.c", source, DataModel::kLP64, false, 0), LimitError);
  // A limit on the program's size is a LimitError too: Parse does not read the program a second time for it.
  std::string blowup;
  for (int k = 1; k <= 14; ++k) blowup += fmt::format("void f{}(void) {{ f{}(); f{}(); }}\n", k, k - 1, k - 1);
  blowup = "void f0(void) { }\n" + blowup + "int main() { f14(); return 0; }\n";
  EXPECT_THROW(ParseText(blowup), LimitError);
  // With time enough, the summarized reading keeps both functions whole.
  const Program summarized = Parse("t.c", source, DataModel::kLP64, true, 60);
  EXPECT_EQ(summarized.procedures.size(), 2u);
}

// An array parameter names the caller's array (C passes its address); a function whose body is one return
// may be called inside an expression.
TEST(Parser, ArrayParametersAndCallsInsideExpressions) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int square(int v) { return v * v; }
int sum(int a[3]) {
  int s = 0;
  for (int i = 0; i < 3; i++) s = s + a[i];
  return s;
}
void clear(int *a, int k) { a[k] = 0; }
int main() {
  int x[3];
  for (int i = 0; i < 3; i++) x[i] = __VERIFIER_nondet_int();
  int before = sum(x);
  clear(x, 1);
  int after = sum(x);
  __VERIFIER_assert(square(after - before) + 1 != square(x[0]) + 2);
  return 0;
}
)";
  // The assertion fails where (x1)^2 + 1 == x0^2 + 2, i.e. x0 = 0 and x1 = 1 or -1: clear wrote the caller's x.
  const Program p = AgreesWithGcc(source, {{0, 1, 5}, {0, -1, 0}, {1, 1, 1}, {0, 2, 7}, {3, 0, 0}});
  EXPECT_EQ(testing::InterpretOn(p, {0, 1, 5}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {1, 1, 1}), Outcome::kFinished);
}

TEST(Parser, ArrayInitialisersGlobalArraysChainedAssignmentsAndShifts) {
  const std::string source = R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
extern void *malloc(unsigned long);
int zeros[3];
int primes[] = {2, 3, 5, 7,};
int big[10000] = {4, 5};
int sized[2 * 3 + (1 << 2)] = {9};
int *heap;
int main() {
  int a[4] = {1, 2};
  char v[] = {'a', 'e', '\0'};
  unsigned u = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  int i, j;
  i = j = x + a[1] + a[3] + zeros[2];
  __VERIFIER_assert(i == j && i == x + 2 && v[1] == 'e' && v[2] == 0 && primes[3] == 7);
  __VERIFIER_assert(big[1] == 5 && big[9999] == 0 && big[u % 10000] == (u % 10000 == 0 ? 4 : u % 10000 == 1 ? 5 : 0));
  heap = malloc(sizeof(int) * 4);
  heap[3] = 8;
  __VERIFIER_assert(heap[3] == 8 && sized[0] == 9 && sized[9] == 0);
  __VERIFIER_assert((x >> 1) != -4);
  __VERIFIER_assert((u >> 3) * 8 + u % 8 == u);
  __VERIFIER_assert((x << 2) != 12);
  __VERIFIER_assert((x >> 31) == (x < 0 ? -1 : 0) && (u >> 31) <= 1 && (x >> 30) >= -2);
  return 0;
}
)";
  // -7 >> 1 is -4 (rounded down, not towards zero as -7 / 2 is); 3 << 2 is 12.
  std::vector<std::vector<long long>> runs;
  for (long long x : {0LL, -7LL, -8LL, -6LL, 3LL, 4LL, 2147483647LL, -2147483648LL}) runs.push_back({4000000000LL, x});
  const Program p = AgreesWithGcc(source, runs);
  EXPECT_EQ(testing::InterpretOn(p, {1, -7}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {1, -6}), Outcome::kFinished);
  EXPECT_EQ(testing::InterpretOn(p, {1, 3}), Outcome::kError);
}

// x & m for a mask of the low bits is x's residue modulo 2^k as two's complement makes it, for negative x too,
// either operand the mask; the input it reads is read once. Other masks, and & of two variables, stay unsupported.
TEST(Parser, AMaskOfTheLowBitsMeansWhatGccMakesOfIt) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int x = __VERIFIER_nondet_int();
  unsigned u = __VERIFIER_nondet_int();
  char c = __VERIFIER_nondet_int();
  long long w = __VERIFIER_nondet_int();
  __VERIFIER_assert((x & 1) == (x % 2 == 0 ? 0 : 1));
  __VERIFIER_assert((x & 7) != 1);
  __VERIFIER_assert((255 & x) >= 0 && (x & 0) == 0 && (x & -1) == x && (x & 0x3fffffff) >= 0);
  __VERIFIER_assert((u & 0xffffffffu) == u && (u & 15u) < 16u && (u & 3) != 2);
  __VERIFIER_assert((c & 0x7f) >= 0 && (w & 1023) <= 1023);
  __VERIFIER_assert((__VERIFIER_nondet_int() & 3) != 3);
  return 0;
}
)";
  std::vector<std::vector<long long>> runs;
  for (long long x : {0LL, 1LL, -1LL, 9LL, -7LL, -8LL, 2147483647LL, -2147483648LL}) {
    for (long long u : {0LL, 6LL, 4294967295LL}) runs.push_back({x, u, x, x, 0});
  }
  runs.push_back({2, 5, -3, -5, 3});
  runs.push_back({2, 5, -3, -5, -1});
  AgreesWithGcc(source, runs);
  const Program p = ParseText(source);
  EXPECT_EQ(testing::InterpretOn(p, {9, 0, 0, 0, 0}), Outcome::kError);    // 9 & 7 == 1
  EXPECT_EQ(testing::InterpretOn(p, {-7, 0, 0, 0, 0}), Outcome::kError);   // -7 & 7 == 1
  EXPECT_EQ(testing::InterpretOn(p, {2, 6, 0, 0, 0}), Outcome::kError);    // 6 & 3 == 2
  EXPECT_EQ(testing::InterpretOn(p, {2, 5, 0, 0, -1}), Outcome::kError);   // -1 & 3 == 3: the input read once
  EXPECT_EQ(testing::InterpretOn(p, {2, 5, 0, 0, 2}), Outcome::kFinished);
}

// x & c, x | c and x ^ c for any other constant c (either operand, compound assignments too), and ~x, mean what gcc
// makes of them: each program reads x and the value that C++ computes for the expression here, and fails
// exactly when they agree, under gcc and under the interpreter alike. With a signed constant of 2^30 or more in
// magnitude, of an operand that reads an input, or with a constant of over 8 runs of ones they are refused.
TEST(Parser, BitwiseOperatorsWithAConstantMeanWhatGccMakesOfThem) {
  struct Case {
    const char* type;
    const char* expr;
    std::function<long long(long long)> value;  // of x as read (the input converted to the type)
  };
  const std::vector<Case> cases = {
      {"int", "x & 5", [](long long x) { return static_cast<int>(x) & 5; }},
      {"int", "6 & x", [](long long x) { return 6 & static_cast<int>(x); }},
      {"int", "x & -8", [](long long x) { return static_cast<int>(x) & -8; }},
      {"int", "x & 0x3ff0f0f0", [](long long x) { return static_cast<int>(x) & 0x3ff0f0f0; }},
      {"int", "x | 1", [](long long x) { return static_cast<int>(x) | 1; }},
      {"int", "x | -16", [](long long x) { return static_cast<int>(x) | -16; }},
      {"int", "x ^ 5", [](long long x) { return static_cast<int>(x) ^ 5; }},
      {"int", "x ^ -1", [](long long x) { return static_cast<int>(x) ^ -1; }},
      {"unsigned", "x & 0xf0f0f0f0u", [](long long x) { return static_cast<unsigned>(x) & 0xf0f0f0f0u; }},
      {"unsigned", "x | 0x80000001u", [](long long x) { return static_cast<unsigned>(x) | 0x80000001u; }},
      {"unsigned", "x ^ 0xffffffffu", [](long long x) { return static_cast<unsigned>(x) ^ 0xffffffffu; }},
      {"signed char", "x & 0x1a", [](long long x) { return static_cast<signed char>(x) & 0x1a; }},
      {"long long", "x ^ (1LL << 40)", [](long long x) { return x ^ (1LL << 40); }},
      {"int", "x; y &= 12; y |= 3; y ^= 6", [](long long x) { return ((static_cast<int>(x) & 12) | 3) ^ 6; }},
      {"int", "x & ~7", [](long long x) { return static_cast<int>(x) & ~7; }},
      {"int", "~x", [](long long x) { return ~static_cast<int>(x); }},
      {"unsigned", "~x | (~0u << 30)", [](long long x) { return ~static_cast<unsigned>(x) | (~0u << 30); }},
  };
  for (const Case& c : cases) {
    const std::string source = std::string(R"(extern long long __VERIFIER_nondet_long(void);
extern void __VERIFIER_assert(int);
int main() {
  )") + c.type + " x = __VERIFIER_nondet_long();\n  long long r = __VERIFIER_nondet_long();\n  " + c.type +
                               " y = " + c.expr + ";\n  __VERIFIER_assert(y != r);\n  return 0;\n}\n";
    std::vector<std::vector<long long>> runs;
    for (long long x : {0LL, 1LL, -1LL, 5LL, 13LL, -6LL, 255LL, -129LL, 2147483647LL, -2147483648LL,
                        4294967295LL, 1234567890123LL, -987654321LL}) {
      runs.push_back({x, c.value(x)});
      runs.push_back({x, c.value(x) + 1});
    }
    const Program p = AgreesWithGcc(source, runs);
    for (const std::vector<long long>& run : runs) {
      EXPECT_EQ(testing::InterpretOn(p, run), run[1] == c.value(run[0]) ? Outcome::kError : Outcome::kFinished)
          << c.expr << " for x = " << run[0];
    }
  }
  for (const char* bitwise : {"x & 0x7fffffff", "x | -1073741825",
                              "__VERIFIER_nondet_int() | 1", "__VERIFIER_nondet_int() & 6", "x & 0x55555"}) {
    EXPECT_EQ(ParseFailure(std::string("extern int __VERIFIER_nondet_int(void);\nint main() { int x = 1; int y = 3; "
                                       "x = ") + bitwise + "; return 0; }")
                  .rfind("unsupported: ", 0),
              0u)
        << bitwise;
  }
}

// x & y, x | y and x ^ y of two variables (compound assignments too) mean what gcc makes of them, over the
// types and their mixes: the usual conversions first (a negative signed char against an unsigned int is sign
// extended, then read as unsigned), then the bits. Each program reads x, y and C++'s value of the expression,
// and fails exactly when they agree, under gcc and under the interpreter alike; operands that read inputs are
// read once.
TEST(Parser, BitwiseOperatorsOfTwoVariablesMeanWhatGccMakesOfThem) {
  struct Case {
    const char* x_type;
    const char* y_type;
    const char* expr;
    std::function<long long(long long, long long)> value;  // of x and y as read (converted to their types)
  };
  const auto sc = [](long long v) { return static_cast<signed char>(v); };
  const auto uc = [](long long v) { return static_cast<unsigned char>(v); };
  const auto i32 = [](long long v) { return static_cast<int>(v); };
  const auto u32 = [](long long v) { return static_cast<unsigned>(v); };
  const auto u64 = [](long long v) { return static_cast<unsigned long long>(v); };
  const std::vector<Case> cases = {
      {"int", "int", "x & y", [&](long long x, long long y) { return i32(x) & i32(y); }},
      {"int", "int", "x | y", [&](long long x, long long y) { return i32(x) | i32(y); }},
      {"int", "int", "x ^ y", [&](long long x, long long y) { return i32(x) ^ i32(y); }},
      {"unsigned", "unsigned", "x ^ y", [&](long long x, long long y) { return u32(x) ^ u32(y); }},
      {"unsigned char", "unsigned char", "x | y", [&](long long x, long long y) { return uc(x) | uc(y); }},
      {"signed char", "unsigned", "x & y", [&](long long x, long long y) { return sc(x) & u32(y); }},
      {"signed char", "unsigned char", "x ^ y", [&](long long x, long long y) { return sc(x) ^ uc(y); }},
      {"long long", "int", "x | y", [&](long long x, long long y) { return x | i32(y); }},
      {"unsigned long long", "signed char", "x & y",
       [&](long long x, long long y) { return static_cast<long long>(u64(x) & u64(sc(y))); }},
      {"int", "unsigned char", "y; y &= x; y |= x & 3; y ^= 5",
       [&](long long x, long long y) { return uc(((uc(y) & i32(x)) | (i32(x) & 3)) ^ 5); }},
      {"int", "int", "x & (y | (x ^ y))",
       [&](long long x, long long y) { return i32(x) & (i32(y) | (i32(x) ^ i32(y))); }},
      {"unsigned", "int", "x & (1u << (y & 31))",
       [&](long long x, long long y) { return u32(x) & (1u << (i32(y) & 31)); }},
  };
  for (const Case& c : cases) {
    const bool compound = std::string(c.expr).find(';') != std::string::npos;
    const std::string result_type = compound ? c.y_type : "long long";
    const std::string source = std::string(R"(extern long long __VERIFIER_nondet_long(void);
extern void __VERIFIER_assert(int);
int main() {
  )") + c.x_type + " x = __VERIFIER_nondet_long();\n  " + c.y_type + " y = __VERIFIER_nondet_long();\n" +
                               "  long long r = __VERIFIER_nondet_long();\n  " +
                               (compound ? std::string("y = ") : result_type + " z = ") + c.expr + ";\n" +
                               "  __VERIFIER_assert(" + (compound ? "y" : "z") + " != r);\n  return 0;\n}\n";
    std::vector<std::vector<long long>> runs;
    for (long long x : {0LL, 1LL, -1LL, 6LL, -6LL, 200LL, -129LL, 2147483647LL, -2147483648LL, 4294967295LL}) {
      for (long long y : {0LL, 3LL, -1LL, 12LL, -100LL, 255LL, 65536LL + 7, -2147483648LL}) {
        runs.push_back({x, y, c.value(x, y)});
      }
    }
    runs.push_back({5, 3, 0});
    runs.push_back({-6, 12, 1});
    const Program p = AgreesWithGcc(source, runs);
    for (const std::vector<long long>& run : runs) {
      EXPECT_EQ(testing::InterpretOn(p, run), run[2] == c.value(run[0], run[1]) ? Outcome::kError : Outcome::kFinished)
          << c.expr << " for x = " << run[0] << ", y = " << run[1];
    }
  }
  const Program once = ParseText(R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int x = __VERIFIER_nondet_int();
  __VERIFIER_assert((x & __VERIFIER_nondet_int()) != 4);
  return 0;
}
)");
  EXPECT_EQ(testing::InterpretOn(once, {6, 12}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(once, {6, 9}), Outcome::kFinished);
}

// a << k and a >> k by a variable k mean what gcc makes of them for every k from 0 to the width - 1 (>> of a
// negative value rounded down); a k outside is undefined, and the interpreter stops there as at a division by
// zero. An operand that reads an input, or a larger one than the chain may copy, is refused.
TEST(Parser, ShiftsByAVariableMeanWhatGccMakesOfThem) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int x = __VERIFIER_nondet_int();
  int k = __VERIFIER_nondet_int();
  unsigned u = __VERIFIER_nondet_int();
  long long w = __VERIFIER_nondet_int();
  if (k < 0 || k > 31) return 0;
  __VERIFIER_assert((x >> k) != -3);
  __VERIFIER_assert((u >> k) != 5u && (u << k) != 40u);
  __VERIFIER_assert(((x & 1) << k) != 1024 && (w << k) != 96LL && (w << (k + 32)) != -(1LL << 40));
  return 0;
}
)";
  std::vector<std::vector<long long>> runs;
  for (long long k : {0LL, 1LL, 3LL, 8LL, 10LL, 31LL}) {
    // w stays small: a signed product past the type's range is undefined (gcc wraps it; it is not modelled).
    for (long long x : {0LL, -5LL, -9LL, 41LL, 2147483647LL, -2147483648LL}) runs.push_back({x, k, x + 7, x % 1000});
  }
  runs.push_back({0, 3, 5, 12});   // 5 << 3 == 40
  runs.push_back({0, 3, 0, -1});   // -1 << 35 == -(2^35)
  runs.push_back({0, 8, 0, -4});   // -4 << 40 == -(2^42)
  AgreesWithGcc(source, runs);
  const Program p = ParseText(source);
  EXPECT_EQ(testing::InterpretOn(p, {-9, 2, 0, 0}), Outcome::kError);       // -9 >> 2 == -3
  EXPECT_EQ(testing::InterpretOn(p, {0, 3, 40, 0}), Outcome::kError);       // 40 >> 3 == 5
  EXPECT_EQ(testing::InterpretOn(p, {1, 10, 0, 0}), Outcome::kError);       // 1 << 10 == 1024
  EXPECT_EQ(testing::InterpretOn(p, {0, 3, 0, 12}), Outcome::kError);       // 12 << 3 == 96
  EXPECT_EQ(testing::InterpretOn(p, {0, 8, 0, -1}), Outcome::kError);       // -1 << 40
  EXPECT_EQ(testing::InterpretOn(p, {0, 2, 0, 0}), Outcome::kFinished);
  // A shift by an expression of numerals is a shift by a constant: its operand may read an input.
  const Program by_numerals = ParseText(
      "int main() { int x = __VERIFIER_nondet_int() << (1 + 1); __VERIFIER_assert(x != 12); return 0; }");
  EXPECT_EQ(testing::InterpretOn(by_numerals, {3}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(by_numerals, {4}), Outcome::kFinished);
  const Program undefined = ParseText(
      "int main() { int x = __VERIFIER_nondet_int(); int k = __VERIFIER_nondet_int(); x = 1 << k; return 0; }");
  EXPECT_EQ(testing::InterpretOn(undefined, {0, 31}), Outcome::kFinished);
  EXPECT_EQ(testing::InterpretOn(undefined, {0, 32}), Outcome::kUndefined);
  EXPECT_EQ(testing::InterpretOn(undefined, {0, -1}), Outcome::kUndefined);
  EXPECT_EQ(ParseFailure("int main() { int x = 1; x = x << __VERIFIER_nondet_int(); return 0; }"),
            "unsupported: t.c:1:31: unsupported shift '<<' by a variable of an operand that reads an input");
  EXPECT_EQ(ParseFailure("int main() { int x = 1; x = x >> 32; return 0; }"),
            "unsupported: t.c:1:31: unsupported shift '>>' by a constant outside 0 to 31 (undefined)");
  EXPECT_EQ(ParseFailure("int main() { int x = 1, k = 2; x = (x + x + x + x + x + x + x + x + x + x + x + x + x + x + "
                         "x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x) << k; return 0; }")
                .rfind("unsupported: t.c:1:", 0),
            0u);
}

// SV-COMP tasks say whether long and pointers have 32 or 64 bits; a wrap-around of a 32-bit long is a bug
// that 64 bits would hide.
TEST(Parser, TheDataModelSizesLongSizeTAndPointers) {
  const auto outcome = [](const std::string& body, DataModel model, const std::vector<long long>& inputs) {
    return testing::InterpretOn(Parse("t.c", "int main() { " + body + " return 0; }", model), inputs);
  };
  const std::string sizes = "__VERIFIER_assert(sizeof(long) == 4 && sizeof(int *) == 4 && sizeof(sizeof(int)) == 4"
                            " && sizeof(long long) == 8);";
  EXPECT_EQ(outcome(sizes, DataModel::kILP32, {}), Outcome::kFinished);
  EXPECT_EQ(outcome(sizes, DataModel::kLP64, {}), Outcome::kError);
  const std::string wrap = "unsigned long x = 4294967295UL; x = x + 1; __VERIFIER_assert(x != 0);";
  EXPECT_EQ(outcome(wrap, DataModel::kILP32, {}), Outcome::kError);
  EXPECT_EQ(outcome(wrap, DataModel::kLP64, {}), Outcome::kFinished);
  const std::string input = "unsigned long y = __VERIFIER_nondet_ulong(); __VERIFIER_assert(y <= 4294967295UL);";
  EXPECT_EQ(outcome(input, DataModel::kILP32, {4294967296LL}), Outcome::kFinished);
  EXPECT_EQ(outcome(input, DataModel::kLP64, {4294967296LL}), Outcome::kError);
  const std::string decl = "long a; unsigned long b; long long c; long int d;";
  const Program ilp32 = Parse("t.c", "int main() { " + decl + " }", DataModel::kILP32);
  EXPECT_EQ(ilp32.VarNamed("a").type, kInt);
  EXPECT_EQ(ilp32.VarNamed("b").type, kUnsigned);
  EXPECT_EQ(ilp32.VarNamed("c").type, kLongLong);
  EXPECT_EQ(ilp32.VarNamed("d").type, kInt);
  EXPECT_EQ(Parse("t.c", "int main() { " + decl + " }").VarNamed("b").type, kUnsignedLong);
  // A pointer to an object on the heap takes a pointer's bytes, whatever its object number takes here (a hunt
  // found 8 under ILP32: a wrong `true` and four wrong `false`).
  const std::string heap = "struct node { int v; struct node *next; } *a[4]; int *b[4];\nint main() { "
                           "struct node *const h = malloc(sizeof(struct node)); __VERIFIER_assert(sizeof(h) == P && "
                           "sizeof(h->next) == P && sizeof(a) == 4 * P && sizeof(b[0]) == P); return 0; }";
  for (const auto& [model, bytes] : {std::pair{DataModel::kILP32, "4"}, std::pair{DataModel::kLP64, "8"}}) {
    const std::string text = std::regex_replace(heap, std::regex("\\bP\\b"), bytes);
    EXPECT_EQ(testing::InterpretOn(Parse("t.c", text, model), {}), Outcome::kFinished) << bytes;
    EXPECT_EQ(testing::InterpretOn(Parse("t.c", std::regex_replace(text, std::regex("== 4 \\*"), "!= 4 *"), model), {}),
              Outcome::kError) << bytes;
  }
}

// A static variable inside a function is one variable, set before main runs and kept between calls and
// iterations; until 2026-12-05 `static` was skipped, the variable set again at each call, and loopfuse proved
// such errors unreachable (a wrong `true`).
TEST(Parser, StaticLocalsKeepTheirValueBetweenCallsAndIterations) {
  const std::string in_function = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int next(void) { static int calls = 10; static int twice; calls = calls + 1; twice = twice + 2; return calls + twice; }
int main(void) {
  int n = __VERIFIER_nondet_int();
  int last = 0;
  for (int i = 0; i < n && i < 5; i++) last = next();
  if (n == 3 && last == 19) reach_error();
  return 0;
}
)";
  const Program p = AgreesWithGcc(in_function, {{2}, {3}, {4}});
  EXPECT_EQ(testing::InterpretOn(p, {3}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {4}), Outcome::kFinished);
  const std::string in_loop = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  for (int i = 0; i < n; i++) { static int left = 100, step = 1; left = left - step; if (left == 97) reach_error(); }
  return 0;
}
)";
  const Program q = AgreesWithGcc(in_loop, {{2}, {3}});
  EXPECT_EQ(testing::InterpretOn(q, {3}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(q, {2}), Outcome::kFinished);
  // Through the clauses as well as by runs: a counter that persists is proved by Spacer, and the reset that
  // hid the error is gone.
  const Verdict counted = Verify(ParseText(R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int next(void) { static int calls; calls = calls + 1; return calls; }
int main(void) {
  int n = __VERIFIER_nondet_int();
  for (int i = 0; i < n; i++) { int x = next(); if (x != i + 1) reach_error(); }
  return 0;
}
)"),
                                 VerifyOptions{30, true});
  EXPECT_EQ(counted.verdict, "true") << counted.reason;
  const Verdict second = Verify(
      ParseText("extern void reach_error(void);\nvoid f(void) { static int c = 0; c++; if (c == 2) reach_error(); }\n"
                "int main(void) { f(); f(); return 0; }"),
      VerifyOptions{30, true});
  EXPECT_EQ(second.verdict, "false") << second.reason;
  EXPECT_EQ(ParseFailure("int main() { static int a[2]; return 0; }"),
            "unsupported: t.c:1:25: unsupported static array 'a'");
  EXPECT_EQ(ParseFailure("int main() { int n = 1; static int c = n; return c; }"),
            "unsupported: t.c:1:40: unsupported initialiser of static 'c' that is not a constant");
  EXPECT_EQ(ParseFailure("int main() { static int c; static int c; return 0; }"),
            "error: t.c:1:39: redefinition of 'c'");
}

// `extern` inside a function names the file's global; until 2026-12-05 it declared a fresh local that shadowed
// the global with a nondeterministic value (a wrong `false`).
TEST(Parser, ExternDeclarationsInsideAFunctionNameTheGlobal) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int g = 5;
int cells[3] = {1, 2, 3};
void bump(void) { extern int g; g = g + 1; }
int main(void) {
  extern int g, cells[];
  extern int __VERIFIER_nondet_int(void);
  extern void reach_error(void);
  int k = __VERIFIER_nondet_int();
  if (k == 1) bump();
  if (g + cells[2] == 9) reach_error();
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{0}, {1}});
  EXPECT_EQ(testing::InterpretOn(p, {1}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {0}), Outcome::kFinished);
  EXPECT_EQ(ParseFailure("int main() { extern int h; return h; }"),
            "unsupported: t.c:1:25: unsupported extern 'h' that the file does not define");
}

// `<<=` and `>>=` are the shifts they abbreviate, on a variable or an array cell (until 2026-12-05 a syntax
// error).
TEST(Parser, ShiftAssignmentsAreTheirShifts) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int a[3] = {1, 2, 3};
  unsigned u = 5;
  int s = -20;
  a[2] <<= 2;
  u >>= 1;
  s >>= 2;
  if (n >= 0 && n < 4) a[0] <<= n;
  if (a[2] == 12 && u == 2 && s == -5 && a[0] == 8) reach_error();
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{3}, {2}, {-1}});
  EXPECT_EQ(testing::InterpretOn(p, {3}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {2}), Outcome::kFinished);
}

// C's comma operator joins expression statements, in a statement and in a for's first and third clauses;
// inside an expression too (since the night of 2026-12-05; before that evening any comma there was a syntax
// error).
TEST(Parser, CommaOperatorJoinsStatementsAndForClauses) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i, j, s = 0;
  for (i = 0, j = n; i < j; i++, j--) s = s + 1;
  i = 1, j = s, s++;
  if (j == 3 && i == 1 && s == 4) reach_error();
  int k = (__VERIFIER_nondet_int(), n);
  for (i = 0; s += i, i++ < k;) j = (i, j + 1);
  while (k = k - 2, k > 0) ;
  if (i == 6 && j == 8 && k == -1 && s == 19) reach_error();
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{4, 0}, {5, 1}, {6, 7}, {0, 0}});
  EXPECT_EQ(testing::InterpretOn(p, {6, 0}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {4, 0}), Outcome::kFinished);
  EXPECT_EQ(testing::InterpretOn(p, {5, 0}), Outcome::kError);  // the values gcc gives for n = 5
  EXPECT_EQ(ParseFailure("int i = 0, j = 1;\nint k = (i, j);\nint main() { return k; }"),
            "unsupported: t.c:2:11: unsupported comma operator inside an expression that no statement runs (the "
            "initialiser of a global or a static, a constant expression)");
}

// A multi-dimensional array is one array laid out row after row: initialisers with nested braces and without,
// `int t[][2]`, a variable extent (taken when the declaration runs), a parameter `int a[][3]`, sizeof, extern.
TEST(Parser, MultiDimensionalArraysMeanWhatGccMakesOfThem) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int g[2][3] = {{1, 2, 3}, {4}};
int t[][2] = {1, 2, 3};
int sum(int a[][3], int rows) {
  int s = 0;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < 3; j++) s += a[i][j];
  return s;
}
int main(void) {
  int m = __VERIFIER_nondet_int(), n = __VERIFIER_nondet_int();
  if (m < 1 || m > 4 || n < 1 || n > 5) return 0;
  int A[m][n];
  n = n + 1;  // the extent is the one of the declaration
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n - 1; j++) A[i][j] = i * 10 + j;
  int c[2][2][2] = {{{1, 2}, {3, 4}}, {{5, 6}, 7, 8}};
  extern int g[2][3];
  g[1][2] = A[m - 1][n - 2];
  if (sum(g, 2) == 44 && t[1][0] + c[1][1][0] == 10 && sizeof g + sizeof t == 40 && c[0][1][1] == 4) reach_error();
  return 0;
}
)";
  // sum(g, 2) is 10 + A's last cell, 10 (m - 1) + n - 1: 44 for m 4, n 5.
  const Program p = AgreesWithGcc(source, {{4, 5}, {3, 5}, {4, 4}, {1, 1}, {0, 3}});
  EXPECT_EQ(testing::InterpretOn(p, {4, 5}), Outcome::kError);
  EXPECT_EQ(testing::InterpretOn(p, {3, 5}), Outcome::kFinished);
  EXPECT_EQ(ParseFailure("int main() { int a[2][3]; int x = a[1]; return 0; }"),
            "unsupported: t.c:1:35: unsupported part of the multi-dimensional array 'a' as a value");
  EXPECT_EQ(ParseFailure("void f(int a[][4]) { }\nint main() { int a[2][3]; f(a); return 0; }"),
            "unsupported: t.c:2:27: unsupported argument 1 of 'f': an array of other dimensions than the "
            "parameter's");
  EXPECT_EQ(ParseFailure("int main() { int a[2][]; return 0; }"),
            "error: t.c:1:23: array 'a' has no size in a dimension after the first");
}

// Tasks that declare their own nondeterministic functions spell some unsigned ones out
// (nla-digbench's `__VERIFIER_nondet_unsigned_int`): each returns a value of its type.
TEST(Parser, SpelledOutUnsignedNondetNamesReturnTheirTypes) {
  const auto outcome = [](const std::string& body, long long input) {
    return testing::InterpretOn(Parse("t.c", "int main() { " + body + " return 0; }", DataModel::kILP32), {input});
  };
  EXPECT_EQ(outcome("int x = __VERIFIER_nondet_unsigned_short(); __VERIFIER_assert(x != 65535);", 65535),
            Outcome::kError);
  EXPECT_EQ(outcome("int x = __VERIFIER_nondet_unsigned_char(); __VERIFIER_assert(x != 255);", 255), Outcome::kError);
  EXPECT_EQ(outcome("unsigned u = __VERIFIER_nondet_unsigned_int(); __VERIFIER_assert(u != 4294967295U);",
                    4294967295LL),
            Outcome::kError);
  EXPECT_EQ(outcome("unsigned long long u = __VERIFIER_nondet_unsigned_long(); __VERIFIER_assert(u < 4294967296ULL);",
                    4294967295LL),
            Outcome::kFinished);
  EXPECT_EQ(ParseFailure("int main() { int x = __VERIFIER_nondet_unsigned_float(); return 0; }"),
            "unsupported: t.c:1:22: unsupported nondeterministic type of '__VERIFIER_nondet_unsigned_float'");
}

// A floating-point type is outside the subset: a verdict of unknown where a value of it is made, with the
// place; declared and never used (nla-digbench's `extern double __VERIFIER_nondet_double(void);`), no error.
TEST(Parser, FloatingPointTypesAreUnsupportedWhereAValueOfThemIsMade) {
  const std::string prototypes = "extern double __VERIFIER_nondet_double(void);\nextern float sqrtf(float);\n";
  EXPECT_EQ(ParseFailure(prototypes + "int main() { int a = 1; return a; }"), "no error");
  EXPECT_EQ(ParseFailure(prototypes + "int main() { int a = __VERIFIER_nondet_double(); return a; }"),
            "unsupported: t.c:3:22: unsupported nondeterministic type of '__VERIFIER_nondet_double'");
  EXPECT_EQ(ParseFailure("int main() {\n  double a, x;\n  return 0;\n}"),
            "unsupported: t.c:2:3: unsupported floating-point type 'double'");
  EXPECT_EQ(ParseFailure("int main() { int a = (float)3; return a; }"),
            "unsupported: t.c:1:23: unsupported floating-point type 'float'");
  EXPECT_EQ(ParseFailure("static double g;\nint main() { return 0; }"),
            "unsupported: t.c:1:15: unsupported floating-point variable 'g'");
  EXPECT_EQ(ParseFailure("double half(int x) { return x / 2; }\nint main() { return half(3) > 1; }"),
            "unsupported: t.c:2:21: unsupported call of 'half': it returns a floating-point value");
  EXPECT_EQ(ParseFailure("struct P { int n; double w; };\nint main() { struct P p; p.n = 1; return 0; }"),
            "unsupported: t.c:2:26: unsupported use of 'p', a variable of struct P, which has a floating-point "
            "member");
}

// Enumeration constants are ints with C's values (given, else one more than the one before); a variable of an
// enum type is of the type gcc gives the enum: unsigned int where no constant is negative, else int. Until
// 2026-12-05 every use of an enumeration constant was a syntax error ("use of undeclared identifier", exit 2).
TEST(Parser, EnumConstantsAreIntsAndEnumVariablesHaveGccsType) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
enum Level { LOW, MID, HIGH = 10, TOP, BELOW = -1 };
typedef enum { RED = 1 << 2, GREEN = RED + 1 } color;
enum Flag { OFF, ON };
int main(void) {
  int x = __VERIFIER_nondet_int();
  enum Flag f = ON;
  enum Level l = BELOW;
  color c = GREEN;
  enum { STEP = 3 } step = STEP;
  int sum = 0;
  switch (x) {
    case MID: sum = TOP; break;
    case HIGH: sum = c; break;
    default: sum = step;
  }
  if (f - 2 < 0) sum = sum + 100;
  if (l - 2 < 0) sum = sum + 1000;
  if (sizeof(enum Flag) != 4) sum = 0;
  if (x == sum + LOW) reach_error();
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{1}, {11}, {1003}, {1005}, {1011}, {10}});
  EXPECT_EQ(testing::InterpretOn(p, {1003}), Outcome::kError);  // f - 2 is unsigned, l - 2 is -3
  EXPECT_EQ(testing::InterpretOn(p, {1011}), Outcome::kFinished);
  EXPECT_EQ(ParseFailure("enum E { A, B };\nint main() { A = 2; return 0; }"),
            "error: t.c:2:14: 'A' is an enumeration constant, not a variable");
  EXPECT_EQ(ParseFailure("int main() { enum E e; return 0; }"),
            "unsupported: t.c:1:19: unsupported enum 'E' before its definition");
  EXPECT_EQ(ParseFailure("extern int __VERIFIER_nondet_int(void);\n"
                         "int main() { int n = __VERIFIER_nondet_int(); enum { K = n }; return 0; }"),
            "unsupported: t.c:2:54: unsupported constant of an enum whose value is not a constant expression 'K'");
  // A header's enum whose values loopfuse cannot read is refused only where one of them is used.
  // (The value fails inside a &&; the parse goes on as before it: a call in a later condition is hoisted.)
  const std::string header = "enum { W = 1 && sizeof(struct unknown), V };\nint f(void) { return 2; }\n";
  const Program hoisted = ParseText(header + "extern void reach_error(void);\n"
                                       "int main() { if (f() == 2) reach_error(); return 0; }");
  EXPECT_EQ(testing::InterpretOn(hoisted, {}), Outcome::kError);
  EXPECT_EQ(ParseFailure(header + "int main() { return V; }"),
            "unsupported: t.c:3:21: unsupported use of 'V', a constant of an enum after one whose value loopfuse does "
            "not read");
}

// Character constants as gcc reads them: octal and hexadecimal escapes, a char of 255 as -1 (char is signed),
// wide and Unicode ones, and GNU C's binary constants. Until 2026-12-05 these escapes were unsupported and
// L'a' a syntax error.
TEST(Parser, CharacterConstantsAndBinaryNumbersAsGccReadsThem) {
  const std::string source = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int sum = '\x41' + '\101' + '\xff' + '\377' + '\7' + '\b' + '\?' + '\v' + '\f' + '"';
  unsigned u = U'a' + u'b' + L'\xff' + L'c';
  if (x == sum + u + 0b101 + 0B11u) reach_error();
  return 0;
}
)";
  const Program p = AgreesWithGcc(source, {{0}, {820}, {821}});
  EXPECT_EQ(testing::InterpretOn(p, {820}), Outcome::kError);
  EXPECT_EQ(ParseFailure("int main() { int c = 'ab'; return c; }"), "unsupported: t.c:1:22: unsupported character "
                                                                      "literal 'ab'");
  EXPECT_EQ(ParseFailure("int main() { int c = u8'a'; return c; }"),
            "unsupported: t.c:1:22: unsupported character literal u8'a'");
  EXPECT_EQ(ParseFailure("int main() { __int128 y = 0; return 0; }"),
            "unsupported: t.c:1:14: unsupported 128-bit integer type '__int128'");
}

// The directives a .c task uses: what gcc's preprocessor makes of them is what the parser must read.
TEST(Parser, PreprocessorDirectivesMeanWhatGccMakesOfThem) {
  const std::string source = R"(#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
#define N 4
#define LAST (N - 1)
#define SIZE LAST + 1
#if 0
this is not C and is never read
#elif defined(N) && SIZE * 2 == 10
#define STEP 1
#else
# define STEP 2
#endif
#ifndef STEP
#error STEP undefined
#endif
#define LIMIT \
  100
#undef N
#define N 3
int main() {
  int a[SIZE];
  for (int i = 0; i < N; i += STEP) a[i] = __VERIFIER_nondet_int();
  __VERIFIER_assert(a[0] + a[2] != LIMIT);
  return 0;
}
)";
  // SIZE * 2 is LAST + 1 * 2 = 5: STEP is 2, so the loop reads a[0] and a[2] (twice as many inputs if it were 1).
  const Program p = AgreesWithGcc(source, {{40, 60}, {40, 61}, {100, 0}});
  EXPECT_EQ(testing::InterpretOn(p, {40, 60}), Outcome::kError);
  // assert of <assert.h> fails as __VERIFIER_assert does (glibc's macro calls __assert_fail); with NDEBUG it is
  // no assertion, which the parser does not take.
  const std::string with_assert = "#include <assert.h>\nextern int __VERIFIER_nondet_int(void);\n"
                                  "int main() { int x = __VERIFIER_nondet_int(); assert(x != 3); return 0; }\n";
  const Program asserting = ParseText(with_assert);
  for (long long x : {3LL, 4LL}) {
    EXPECT_EQ(testing::InterpretOn(asserting, {x}), x == 3 ? Outcome::kError : Outcome::kFinished);
  }
  EXPECT_THROW(ParseText("#define NDEBUG\n" + with_assert), UnsupportedError);
  // Function-like macros (forester-heap's `#define __VERIFIER_assert(cond) do { ... } while (0)`): arguments
  // expanded before they replace the parameters, nested calls, a call over several lines, a name of a
  // function-like macro without '(' left alone, #undef.
  const std::string functions = R"(extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
extern void abort(void);
#define __VERIFIER_assert(cond) do { if (!(cond)) { reach_error(); abort(); } } while (0)
#define TWICE(x) (2 * (x))
#define ADD(a, b) ((a) + (b))
#define K 5
#define ZERO() 0
#define MAX(a, b) ((a) > (b) ? (a) : (b))
int ADDER(int v) { return v + 1; }
#define ADDER(v) (v)
#undef ADDER
int main() {
  int x = __VERIFIER_nondet_int();
  int y = ADD(TWICE(x), ADD(K,
                           ZERO()));
  __VERIFIER_assert(y == 2 * x + 5 && MAX(x, K) >= K && ADDER(x) == x + 1);
  __VERIFIER_assert(TWICE(ADD(x, 1)) != 8);
  return 0;
}
)";
  const Program p_functions = AgreesWithGcc(functions, {{0}, {3}, {-4}});
  EXPECT_EQ(testing::InterpretOn(p_functions, {3}), Outcome::kError);
  // A use of a macro is located where its name stands.
  try {
    ParseText("#define BAD (x + 1)\nint main() {\n  int y = BAD;\n  return 0;\n}\n");
    FAIL() << "no error";
  } catch (const common::InputError& e) {
    EXPECT_STREQ(e.what(), "t.c:3:11: use of undeclared identifier 'x'");
  }
}

// #if evaluates in intmax_t and uintmax_t; gcc decides each expected value.
TEST(Parser, PreprocessorConditionsUseCsArithmetic) {
  const std::vector<std::pair<std::string, bool>> conditions = {
      {"-1 > 0u", true},          {"-1 > 0", false},        {"(1 << 62) * 4 == 0", true},
      {"0 && 1 / 0", false},      {"1 || 1 % 0", true},     {"0 ? 1 / 0 : 7 == 7", true},
      {"~0 == -1 && !0", true},   {"0x10 + 010 == 24", true}, {"UNDEFINED_NAME == 0", true},
      {"-7 / 2 == -3 && -7 % 2 == -1", true}, {"18446744073709551615 == -1", true}, {"-8 >> 1 == -4", true}};
  for (const auto& [condition, value] : conditions) {
    const std::string source = "extern void __VERIFIER_assert(int cond);\n#if " + condition +
                               "\n#define R 1\n#else\n#define R 0\n#endif\n"
                               "int main() { __VERIFIER_assert(R); return 0; }\n";
    const testing::GccProgram gcc(source);
    ASSERT_EQ(gcc.error(), "") << condition;
    ASSERT_EQ(gcc.Run({}), value ? "finished" : "error") << condition;
    EXPECT_EQ(testing::InterpretOn(ParseText(source), {}), value ? Outcome::kFinished : Outcome::kError) << condition;
  }
}

TEST(Parser, DirectivesBeyondThePreprocessorAreRefusedWithTheReason) {
  const auto message = [](const std::string& text) { return ParseFailure(text + "int main() { return 0; }\n"); };
  EXPECT_EQ(message("#define S(x) #x\n"),
            "unsupported: t.c:1:14: unsupported operator '#' in macro 'S' (preprocess the file first: gcc -E)");
  EXPECT_EQ(message("#define P(...) 0\n"),
            "unsupported: t.c:1:11: unsupported variadic macro 'P' (preprocess the file first: gcc -E)");
  EXPECT_EQ(ParseFailure("#define F(a, b) (a + b)\nint main() { return F(1); }\n"),
            "error: t.c:2:21: macro 'F' takes 2 arguments, given 1");
  EXPECT_EQ(ParseFailure("#define F(a) (a)\nint main() { return F(1; }\n"),
            "error: t.c:2:21: unterminated argument list invoking macro 'F'");
  EXPECT_EQ(message("#include \"task.h\"\n"), "unsupported: t.c:1:2: unsupported #include of a file other than a "
                                             "system header (preprocess the file first: gcc -E)");
  EXPECT_EQ(message("#embed <x>\n"), "unsupported: t.c:1:2: unsupported preprocessor directive '#embed'");
  EXPECT_EQ(message("#if 1\n"), "error: t.c:1:1: #if without #endif");
  EXPECT_EQ(message("#endif\n"), "error: t.c:1:1: #endif without #if");
  EXPECT_EQ(message("#if 1\n#else\n#elif 1\n#endif\n"), "error: t.c:3:1: #elif after #else");
  EXPECT_EQ(message("#if 2 / (1 - 1)\n#endif\n"), "error: t.c:1:7: division by zero in #if");
  EXPECT_EQ(message("#if (1\n#endif\n"), "error: t.c:1:1: expected ')' in #if");
  EXPECT_EQ(message("#ifdef\n#endif\n"), "error: t.c:1:2: macro name missing after #ifdef");
  EXPECT_EQ(message("#define X\n#if defined X\n#error X is\n#endif\n"), "error: t.c:3:1: #error X is");
  EXPECT_EQ(message("#define Q 'a\n"), "error: t.c:1:11: unterminated literal");
  EXPECT_EQ(message("int x = 1 @ 2;\n"), "error: t.c:1:11: unexpected character '@'");
  // A #define with a space before its parenthesis is object-like; the # 1 "f.c" markers of .i files are skipped,
  // and so is text in a group not kept, even where it is no C.
  EXPECT_EQ(message("# 1 \"f.c\"\n#define ONE (1)\n#pragma once\n#if 0\nit's @ #x\n#foo\n#endif\n"), "no error");
}

TEST(Parser, EverySvCompTaskParses) {
  const auto tasks = testing::SvCompTasks();
  if (tasks.empty()) GTEST_SKIP() << "no shared data in " << SHARED_DATA_DIR;
  for (const auto& t : tasks) EXPECT_NO_THROW(ParseFile(t.file, t.data_model)) << t.file;
  EXPECT_EQ(tasks.size(), 31u);
}

}  // namespace
}  // namespace fusion
