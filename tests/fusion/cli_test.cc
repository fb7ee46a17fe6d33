// The loopfuse executable end to end on the bundled examples.
#include <gtest/gtest.h>

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "fusion/verifier.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::RunCommand;

const std::string kBin = LOOPFUSE_BIN;
const std::string kExamples = std::string(EXAMPLES_DIR) + "/fusion/";

// Runs loopfuse with arguments; returns the exit status and the JSON it printed.
int Verify(const std::string& args, nlohmann::json& out) {
  std::string text;
  const int status = RunCommand(kBin + " verify --json " + args + " 2>/dev/null", text);
  out = nlohmann::json::parse(text);
  return status;
}

// Whether this process made its scratch directory.
bool scratch_dir_made = false;

// The process's own directory for the files the tests write (so that runs side by side never share a file),
// made at the first use and removed when the tests end.
const std::filesystem::path& ScratchDir() {
  static const std::filesystem::path dir = [] {
    std::string name = (std::filesystem::temp_directory_path() / "loopfuse_cli_XXXXXX").string();
    if (mkdtemp(name.data()) == nullptr) throw std::runtime_error("cannot create a directory like " + name);
    scratch_dir_made = true;
    return std::filesystem::path(name);
  }();
  return dir;
}

// Removes the scratch directory after the last test, so that no run leaves files behind.
class ScratchDirRemover : public ::testing::Environment {
 public:
  void TearDown() override {
    if (scratch_dir_made) std::filesystem::remove_all(ScratchDir());
  }
};
[[maybe_unused]] const ::testing::Environment* const kScratchDirRemover =
    ::testing::AddGlobalTestEnvironment(new ScratchDirRemover);

// A path in the scratch directory, named after the test and `name`.
std::string ScratchPath(const std::string& name) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return (ScratchDir() / fmt::format("{}_{}", test->name(), name)).string();
}

// Writes text to a file of its own in the scratch directory and returns its path.
std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ScratchPath(name);
  std::ofstream(path) << text;
  return path;
}

// Verifies `program` with `proved` in place of its %s, then with `refuted`: `true` (exit 0), then `false` (1),
// each written to a file named after `name`.
void ExpectProvedThenRefuted(const char* program, const std::string& name, const char* proved, const char* refuted) {
  char text[1024];
  std::snprintf(text, sizeof text, program, proved);
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 20 " + WriteTemp(name + ".c", text), j), 0) << j.dump();
  EXPECT_EQ(j["verdict"], "true");
  std::snprintf(text, sizeof text, program, refuted);
  EXPECT_EQ(Verify("--timeout 20 " + WriteTemp(name + "_bug.c", text), j), 1) << j.dump();
  EXPECT_EQ(j["verdict"], "false");
}

// loop-invgen/up.i: without the affine invariants Spacer proves the original in none of the option sets
// (each given 3 s), the fused program in a fraction of a second.
constexpr const char* kUp = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main(void) {
  int n = __VERIFIER_nondet_int(); int i = 0; int k = 0;
  while (i < n) { i++; k++; }
  int j = 0;
  while (j < n) { __VERIFIER_assert(k > 0); j++; k--; }
  return 0;
}
)";

TEST(Cli, ProvesASafeProgramByGuessAndAssumeFusion) {
  const std::string file = WriteTemp("up.c", kUp);
  nlohmann::json j;
  EXPECT_EQ(Verify(file + " --timeout 30 --invariants --no-affine", j), 0);
  EXPECT_EQ(j["verdict"], "true");
  ASSERT_FALSE(j["transformations"].empty());
  EXPECT_NE(j["transformations"][0].get<std::string>().find("guess-and-assume"), std::string::npos);
  EXPECT_FALSE(j["invariants"].empty());
  EXPECT_GE(j["seconds"].get<double>(), 0.0);
}

TEST(Cli, TheAffineInvariantsProveTheOriginalAndShowInItsInvariants) {
  // With the equality k == i of the first loop given, up.i needs no fusion.
  const std::string file = WriteTemp("up.c", kUp);
  nlohmann::json j;
  EXPECT_EQ(Verify(file + " --timeout 30 --invariants --no-fusion", j), 0);
  EXPECT_EQ(j["verdict"], "true");
  EXPECT_TRUE(j["transformations"].empty());
  const std::string invariants = j["invariants"].dump();
  EXPECT_NE(invariants.find("(= (+ (* (- 1) i) k) 0)"), std::string::npos) << invariants;
}

TEST(Cli, APolynomialEqualityProvesASumOfSquaresWithoutSpacer) {
  // nla-digbench's ps3: x is 1 + 4 + ... + y^2, so 6x == 2y^3 + 3y^2 + y; its twin asserts 6x == 2y^3 + y. Too
  // many inputs for the interpreter to run each.
  const char* program = R"(int main() {
      int k = __VERIFIER_nondet_int();
      if (!(k >= 0 && k <= 1000000)) return 0;
      int y = 0, x = 0, c = 0;
      while (c < k) { c = c + 1; y = y + 1; x = y * y + x; }
      __VERIFIER_assert(%s);
      return 0; })";
  char text[1024];
  std::snprintf(text, sizeof text, program, "6 * x == 2 * y * y * y + 3 * y * y + y");
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 30 --no-fusion " + WriteTemp("squares.c", text), j), 0) << j.dump();
  EXPECT_EQ(j["verdict"], "true");
  EXPECT_NE(j["solved_by"].get<std::string>().find("inferred invariants"), std::string::npos) << j.dump();
  std::snprintf(text, sizeof text, program, "6 * x == 2 * y * y * y + y");
  EXPECT_EQ(Verify("--timeout 30 --no-fusion " + WriteTemp("squares_bug.c", text), j), 1) << j.dump();
  EXPECT_EQ(j["verdict"], "false");
}

TEST(Cli, HornShowsTheClausesStrengthenedByTheAffineInvariants) {
  const std::string file = WriteTemp("up.c", kUp);
  std::string plain, strengthened;
  ASSERT_EQ(RunCommand(kBin + " horn " + file, plain), 0);
  ASSERT_EQ(RunCommand(kBin + " horn --affine " + file, strengthened), 0);
  EXPECT_EQ(strengthened.rfind("; strengthened by the inferred invariants: 1 equalities, 0 polynomial equalities and 0 "
                               "of their consequences, 0 disjunctions of bounds, 0 loop heads unreachable\n",
                               0),
            0u)
      << strengthened;
  // k == i in the body of both clauses that leave the first loop's head.
  const auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(strengthened, "(= (+ (* (- 1) i!"), 2u) << strengthened;
  EXPECT_EQ(count(plain, "(= (+ (* (- 1) i!"), 0u) << plain;
}

TEST(Cli, RefutesABuggyProgramWithInputsThatReachTheError) {
  nlohmann::json j;
  EXPECT_EQ(Verify(kExamples + "counters_bug.c --timeout 10", j), 1);
  EXPECT_EQ(j["verdict"], "false");
  ASSERT_TRUE(j.contains("counterexample"));
  EXPECT_FALSE(j["counterexample"]["inputs"].empty());
}

TEST(Cli, NoFusionLeavesTheProgramAsItIs) {
  nlohmann::json j;
  Verify(kExamples + "init_check.c --timeout 3 --no-fusion", j);
  EXPECT_TRUE(j["transformations"].empty());
  EXPECT_NE(j["verdict"], "false");
}

TEST(Cli, ReadsTheProgramNamedByATaskFile) {
  const std::string dir = ScratchPath("task");
  std::filesystem::create_directories(dir);
  std::string out;
  RunCommand("cp " + kExamples + "init_check.c " + dir + "/ && printf \"format_version: '2.0'\\ninput_files: 'init_check.c'\\n\" > " + dir + "/t.yml", out);
  nlohmann::json j;
  EXPECT_EQ(Verify("--yml " + dir + "/t.yml --timeout 30", j), 0);
  EXPECT_EQ(j["verdict"], "true");
}

// The time-out bounds the whole run: parsing, and the inlining of calls that recursion makes long (a second and
// a half of verifythis' prefixsum_rec before 2026-12-06, which then ran 6.9 s under --timeout 5), counts.
TEST(Cli, TheTimeOutCountsTheParse) {
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 0.000001 " + kExamples + "init_check.c", j), 4) << j.dump();
  EXPECT_EQ(j["verdict"], "unknown");
  EXPECT_EQ(j["reason"].get<std::string>().rfind("time-out (parsing and inlining the program took ", 0), 0u)
      << j.dump();
  EXPECT_GT(j["seconds"].get<double>(), 0.000001);
  // Inlining stops at the time-out: a recursion that runs another at every level makes 10 000 calls, seconds of
  // inlining (SV-COMP's Primes: 13.7 s under --timeout 10 before 2026-12-07).
  const std::string dir = ScratchPath("parse_timeout");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/primes.c") << R"(
int multiple_of(int n, int m) { if (m <= 0 || n < 0) return 0; if (n == 0) return 1; return multiple_of(n - m, m); }
int is_prime_(int n, int m) { if (m <= 1) return 1; if (multiple_of(n, m)) return 0; return is_prime_(n, m - 1); }
int main() { int n = __VERIFIER_nondet_int(); __VERIFIER_assert(is_prime_(n, n - 1) || n > 3); return 0; }
)";
  EXPECT_EQ(Verify("--timeout 0.000001 " + dir + "/primes.c", j), 4) << j.dump();
  EXPECT_EQ(j["reason"].get<std::string>().rfind("time-out (parsing and inlining stopped after 0.00 s at ", 0), 0u)
      << j.dump();
}

TEST(Cli, ARecursionTooLongToInlineIsVerifiedByItsSummariesAlone) {
  // Before 2026-12-07 its verdict was the inlining's limit (SV-COMP's Primes: unknown, now true in 7-10 s of 10).
  nlohmann::json j;
  EXPECT_EQ(Verify(WriteTemp("safe.c", testing::RecursionTooLongToInline("g(n - 1)", "r == 0")), j), 0) << j.dump();
  EXPECT_EQ(j["solved_by"].get<std::string>().rfind("summaries / ", 0), 0u) << j.dump();
  const std::string bug = WriteTemp("bug.c", testing::RecursionTooLongToInline("g(n - 1) + 1", "r == 0 || n < 3"));
  EXPECT_EQ(Verify(bug, j), 1) << j.dump();
  // Where the summarized reading refuses the program too (a recursive function that writes an array), the
  // inlining's limit is the reason.
  const std::string refused =
      WriteTemp("refused.c", "int a[2];\n" + testing::RecursionTooLongToInline("a[0] = n, g(n - 1)", "r == 0"));
  EXPECT_EQ(Verify(refused, j), 4) << j.dump();
  EXPECT_NE(j["reason"].get<std::string>().find(":5:23: unsupported more than 10000 inlined calls"), std::string::npos)
      << j.dump();
}

TEST(Cli, ASyntaxErrorIsBadInputWithItsLocation) {
  std::string out;
  EXPECT_EQ(RunCommand(kBin + " verify " + kExamples + "syntax_error.c 2>&1", out), 2);
  EXPECT_NE(out.find("syntax_error.c:3:3: expected ';'"), std::string::npos) << out;
}

TEST(Cli, ProvesAndRefutesARemainderByAVariable) {
  // s % n, outside Spacer's linear arithmetic, is encoded by linear facts that make it exact here (s == n).
  const char* kProgram = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int n = __VERIFIER_nondet_int();
  int s = 0;
  int i;
  if (n <= 0) return 0;
  for (i = 0; i < n; i++) s = s + 1;
  for (i = 0; i < n; i++) __VERIFIER_assert(s %% n == %d);
  return 0;
}
)";
  char text[1024];
  std::snprintf(text, sizeof text, kProgram, 0);
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 20 " + WriteTemp("mod.c", text), j), 0) << j.dump();
  EXPECT_EQ(j["verdict"], "true");
  std::snprintf(text, sizeof text, kProgram, 1);
  EXPECT_EQ(Verify("--timeout 20 " + WriteTemp("mod_bug.c", text), j), 1) << j.dump();
  EXPECT_EQ(j["verdict"], "false");
}

TEST(Cli, AnUnknownSaysWhenOnlyTheBoundsOfARemainderReachTheError) {
  // (7 * n) % n is 0, but where the dividend is three times the divisor or more the clauses know only the
  // remainder's sign and |r| < |n|: Spacer reaches the error with r = 1, which no run does. The verdict stays
  // unknown and says why.
  const std::string file = WriteTemp("mod_bounds.c", R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 4 || n > 1000000) return 0;
  int r = (7 * n) % n;
  __VERIFIER_assert(r == 0);
  return 0;
}
)");
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 20 " + file, j), 4) << j.dump();
  EXPECT_EQ(j["verdict"], "unknown");
  const std::string reason = j["reason"];
  EXPECT_EQ(reason.rfind("Spacer found the error reachable (", 0), 0u) << reason;
  EXPECT_NE(reason.find(fusion::kBoundedDivisionNote), std::string::npos) << reason;
}

TEST(Cli, ProvesALoopThatCountsByParityWithAMask) {
  // i & 1 is i's residue modulo 2, which Spacer's linear arithmetic takes.
  const std::string file = WriteTemp("parity.c", R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int n = __VERIFIER_nondet_int();
  int even = 0, odd = 0;
  if (n < 0 || n > 100000) return 0;
  for (int i = 0; i < n; i++) {
    if ((i & 1) == 0) even++; else odd++;
  }
  __VERIFIER_assert(even == odd || even == odd + 1);
  return 0;
}
)");
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 20 " + file, j), 0) << j.dump();
  EXPECT_EQ(j["verdict"], "true");
}

TEST(Cli, ProvesAndRefutesFlagsSetWithBitwiseOperators) {
  // After sv-benchmarks' loop-invariants/bin-suffix-5: x keeps its low bits 101 (x & 5 == 5) through x += 8,
  // and sets bit 3 with |= 8 (after which x & 8 is 8, not 0).
  const char* kProgram = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  unsigned int x = 5;
  while (__VERIFIER_nondet_int()) x += 8;
  __VERIFIER_assert((x & 5) == 5);
  x |= 8;
  __VERIFIER_assert(%s);
  return 0;
}
)";
  ExpectProvedThenRefuted(kProgram, "flags", "(x & (1 << 3)) == 8", "(x & 8) == 0");
}

TEST(Cli, ProvesAndRefutesAShiftByAVariable) {
  // string-2's `found = (j > nc_B - 1) << i`: b << i is 2 for b = 1, i = 1.
  const char* kProgram = R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int i = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (i < 0 || i > 4 || b < 0 || b > 1) return 0;
  int f = b << i;
  __VERIFIER_assert(%s);
  return 0;
}
)";
  ExpectProvedThenRefuted(kProgram, "shift", "f >= 0 && f <= 16 && (b == 0) == (f == 0)", "f == 0 || f == 1");
}

// Verifies examples/fusion/`example`, which must be proved (by `solved_by`, unless it is empty: where which
// solver run ends first varies), then the example with `from` replaced by `to`, which must be refuted; the
// second's JSON.
nlohmann::json ExpectExampleProvedThenRefuted(const std::string& example, const std::string& solved_by,
                                              const std::string& from, const std::string& to) {
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 20 " + kExamples + example, j), 0) << j.dump();
  EXPECT_EQ(j["verdict"], "true");
  if (!solved_by.empty()) {
    EXPECT_EQ(j["solved_by"], solved_by);
  }
  std::ifstream in(kExamples + example);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return j;
  text.replace(at, from.size(), to);
  EXPECT_EQ(Verify("--timeout 20 " + WriteTemp("bug_" + example, text), j), 1) << j.dump();
  EXPECT_EQ(j["verdict"], "false");
  return j;
}

TEST(Cli, ProvesAProgramThatReadsNothingByItsOnlyRun) {
  // The same sort checked against the wrong order: its only run fails.
  ExpectExampleProvedThenRefuted("only_run.c", "interpreter (the only run)", "a[i] == i", "a[i] == 7 - i");
}

TEST(Cli, ProvesAndRefutesLoopsOfMillionsOfIterations) {
  const nlohmann::json j =
      ExpectExampleProvedThenRefuted("long_run.c", "interpreter (the only run)", "z == 45000000", "z == 45000001");
  EXPECT_EQ(j["solved_by"], "interpreter");
}

TEST(Cli, ProvesAProgramByEveryRunItsChecksAllow) {
  // With a bug from one of the thousand values on: the first run that reaches the error is the counterexample.
  const nlohmann::json j = ExpectExampleProvedThenRefuted("bounded_inputs.c", "interpreter (every run: 1000)",
                                                          "sum = sum + i;", "sum = sum + (i == 777 ? 0 : i);");
  ASSERT_EQ(j["counterexample"]["inputs"].size(), 1u);
  EXPECT_EQ(j["counterexample"]["inputs"][0], 777);  // the first of the values that fail
}

TEST(Cli, ProvesAndRefutesAProgramWithOutParameters) {
  // The bug's counterexample reads 100.
  const nlohmann::json j = ExpectExampleProvedThenRefuted("out_parameters.c", "", "hi <= 100", "hi < 100");
  const auto inputs = j["counterexample"]["inputs"].get<std::vector<long long>>();
  EXPECT_NE(std::find(inputs.begin(), inputs.end(), 100), inputs.end()) << j.dump();
}

TEST(Cli, ProvesAndRefutesAProgramWithPointersWalkingArrays) {
  // 100 000 cells and any n up to them: proved by the clauses, not by enumerating runs.
  nlohmann::json j;
  ASSERT_EQ(Verify("--timeout 20 " + kExamples + "pointer_walk.c", j), 0) << j.dump();
  EXPECT_EQ(j["solved_by"].get<std::string>().rfind("interpreter", 0), std::string::npos) << j.dump();
  ExpectExampleProvedThenRefuted("pointer_walk.c", "", "assert(*q == v)", "assert(*q == v + 1)");
}

TEST(Cli, ProvesAndRefutesNestsOverAMatrixCollapsedAndFused) {
  // `fuse` collapses both nests and fuses the loops they become; `verify` proves the program (by that fused
  // candidate, as a rule, but which run ends first varies), then refutes it with a check off by j.
  std::string fused;
  ASSERT_EQ(RunCommand(kBin + " fuse --json " + kExamples + "matrix.c", fused), 0);
  const std::vector<std::string> expected = {
      "read as constants, set once before any read: m = 300, n = 500, extent_a = 500",
      "collapsed the loop nest at line 9 (300 x 500 iterations of i and j) into one loop",
      "collapsed the loop nest at line 11 (300 x 500 iterations of i_1 and j_1) into one loop",
      "aligned fusion of the loops at lines 9 and 11"};
  EXPECT_EQ(nlohmann::json::parse(fused)["transformations"].get<std::vector<std::string>>(), expected) << fused;
  ExpectExampleProvedThenRefuted("matrix.c", "", "a[i][j] - i + j == c", "a[i][j] - i == c");
}

// A counterexample says where each value was read: the __VERIFIER_nondet_* calls by position, bare in the text
// (in the order of the calls, as a replay under gcc feeds them), and the uninitialised variables and array cells
// by name, so that their values, which a compiled program does not take from a harness, are not mistaken for the
// calls'.
TEST(Cli, ACounterexampleTellsTheCallsValuesFromTheUninitialisedVariables) {
  const std::string file = WriteTemp("uninitialised.c", R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main() {
  int a, b;
  int c[4];
  int d[2][3];
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  a = x + 1;
  __VERIFIER_assert(x != 5 || y != 7 || c[2] != 9 || d[1][2] != 4);
  return b;
}
)");
  nlohmann::json j;
  ASSERT_EQ(Verify(file, j), 1) << j.dump();
  ASSERT_EQ(j["counterexample"]["inputs"].size(), 6u) << j.dump();
  EXPECT_EQ(j["counterexample"]["inputs"][2], 5);
  EXPECT_EQ(j["counterexample"]["inputs"][3], 7);
  EXPECT_EQ(j["counterexample"]["inputs"][4], 9);
  EXPECT_EQ(j["counterexample"]["inputs"][5], 4);
  // A cell of a multi-dimensional array by its subscripts, as C names it (the parser lays it out flat).
  EXPECT_EQ(j["counterexample"]["sites"],
            nlohmann::json::parse(R"([{"variable": "a"}, {"variable": "b"}, {"line": 7, "column": 11},
                                      {"line": 8, "column": 11}, {"variable": "c[2]"}, {"variable": "d[1][2]"}])"));
  std::string text;
  EXPECT_EQ(RunCommand(kBin + " verify " + file, text), 1);
  const std::regex shown(R"(nondeterministic inputs \(6\): a=-?[0-9]+ b=-?[0-9]+ 5 7 c\[2\]=9 d\[1\]\[2\]=4\n)");
  EXPECT_TRUE(std::regex_search(text, shown)) << text;
}

TEST(Cli, ProvesACFileWithMacrosAndADivisorSetOnce) {
  // Without the preprocessor SIZE is undeclared; without the constant, i % m is a remainder by a variable.
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 30 " + kExamples + "defines.c", j), 0) << j.dump();
  EXPECT_EQ(j["verdict"], "true");
  ASSERT_FALSE(j["transformations"].empty());
  EXPECT_EQ(j["transformations"][0], "read as constants, set once before any read: m = 2");
  std::string text;
  EXPECT_EQ(RunCommand(kBin + " fuse " + kExamples + "defines.c", text), 0);
  EXPECT_NE(text.find("// read as constants, set once before any read: m = 2"), std::string::npos) << text;
  EXPECT_NE(text.find("% 2u"), std::string::npos) << text;
}

TEST(Cli, ProvesAPolynomialFilledInByRecurrences) {
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 30 " + kExamples + "recurrence.c", j), 0) << j.dump();
  EXPECT_EQ(j["verdict"], "true");
  EXPECT_EQ(j["solved_by"].get<std::string>().rfind("recurrences", 0), 0u) << j.dump();
  // The program it proves, as C that gcc takes: the ghost of i*i updated linearly.
  const std::string printed = ScratchPath("fused.c");
  std::string out;
  EXPECT_EQ(RunCommand(kBin + " fuse --mode recurrences " + kExamples + "recurrence.c > " + printed, out), 0);
  std::string text;
  EXPECT_EQ(RunCommand("cat " + printed, text), 0);
  EXPECT_NE(text.find("i_sq = ((i_sq + (2LL * ((__int128)i))) + 1LL)"), std::string::npos) << text;
  EXPECT_NE(text.find("b[i] = (b_prev + a_prev);"), std::string::npos) << text;
  EXPECT_EQ(RunCommand("gcc -c -o /dev/null " + printed + " 2>&1", out), 0) << out;
}

TEST(Cli, TheTaskFilesDataModelSizesLong) {
  // x + 1 wraps to 0 where long has 32 bits (ILP32), not where it has 64.
  const std::string program = WriteTemp("wrap.c", R"(extern void __VERIFIER_assert(int);
int main() {
  unsigned long x = 4294967295UL;
  x = x + 1;
  __VERIFIER_assert(x != 0);
  return 0;
}
)");
  const std::string yml = WriteTemp("wrap.yml", fmt::format(R"(format_version: '2.0'
input_files: '{}'
properties:
  - property_file: ../properties/unreach-call.prp
    expected_verdict: false
options:
  language: C
  data_model: ILP32
)", std::filesystem::path(program).filename().string()));
  nlohmann::json j;
  EXPECT_EQ(Verify("--timeout 20 --yml " + yml, j), 1);
  EXPECT_EQ(j["verdict"], "false");
  EXPECT_EQ(Verify("--timeout 20 --data-model LP64 --yml " + yml, j), 0);
  EXPECT_EQ(j["verdict"], "true");
}

TEST(Cli, AnUnsupportedConstructIsUnknownWithTheReason) {
  nlohmann::json j;
  EXPECT_EQ(Verify(kExamples + "unsupported.c", j), 4);
  EXPECT_EQ(j["verdict"], "unknown");
  EXPECT_NE(j["reason"].get<std::string>().find(
                "unsupported.c:4:12: unsupported pointer expression (only malloc, calloc and alloca results are "
                "arrays)"),
            std::string::npos);
}

TEST(Cli, FusePrintsCThatGccCompiles) {
  std::string out;
  const std::string printed = ScratchPath("fused.c");
  ASSERT_EQ(RunCommand(kBin + " fuse " + kExamples + "counters.c > " + printed, out), 0);
  EXPECT_EQ(RunCommand("gcc -c -o /dev/null " + printed + " 2>&1", out), 0) << out;
}

TEST(Cli, FuseShowsEitherHalfOfTheWrapAroundSplit) {
  // y + 1 may wrap: the no-wrap half asserts that it does not, the other half assumes it.
  const std::string file = WriteTemp("inc.c", R"(extern unsigned int __VERIFIER_nondet_uint(void);
extern void __VERIFIER_assert(int);
int main(void) {
  unsigned int y = __VERIFIER_nondet_uint();
  y = y + 1;
  __VERIFIER_assert(y != 0);
  return 0;
}
)");
  std::string no_wrap, under;
  EXPECT_EQ(RunCommand(kBin + " fuse --half no-wrap " + file, no_wrap), 0);
  EXPECT_EQ(RunCommand(kBin + " fuse --half under-no-wrap " + file, under), 0);
  EXPECT_NE(no_wrap.find("__VERIFIER_assert(((0LL <= "), std::string::npos) << no_wrap;
  EXPECT_NE(under.find("__VERIFIER_assume(((0LL <= "), std::string::npos) << under;
  std::string bad;
  EXPECT_EQ(RunCommand(kBin + " fuse --half sideways " + file + " 2>&1", bad), 2);
}

TEST(Cli, FuseAndHornShowTheCellAbstraction) {
  const std::string file = WriteTemp("fill.c", R"(extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int);
int main(void) {
  int n = __VERIFIER_nondet_int(); int a[n]; int i;
  for (i = 0; i < n; i++) a[i] = 3;
  for (i = 0; i < n; i++) __VERIFIER_assert(a[i] == 3);
  return 0;
}
)");
  std::string fused, horn;
  const std::string printed = ScratchPath("fused.c");
  ASSERT_EQ(RunCommand(kBin + " fuse --cells --mode guess " + file + " > " + printed, fused), 0);
  ASSERT_EQ(RunCommand("cat " + printed, fused), 0);
  EXPECT_EQ(fused.rfind("// cell abstraction: the arrays a as their cells at one nondeterministic index\n"
                        "// guess-and-assume fusion of the loops at lines 5, 6\n", 0), 0u) << fused;
  EXPECT_EQ(fused.find('['), std::string::npos) << fused;
  // Aligned fusion does not apply to the abstraction (a_cell carries a dependence): the abstraction alone.
  std::string cells;
  ASSERT_EQ(RunCommand(kBin + " fuse --cells --mode aligned " + file, cells), 0);
  EXPECT_NE(cells.find("    if ((i == cell_index)) {\n      a_cell = 3;\n    }\n"), std::string::npos) << cells;
  EXPECT_NE(cells.find("    if ((i == cell_index)) {\n      __VERIFIER_assert((a_cell == 3));\n    }\n"),
            std::string::npos)
      << cells;
  std::string out;
  EXPECT_EQ(RunCommand("gcc -c -o /dev/null " + printed + " 2>&1", out), 0) << out;
  EXPECT_EQ(RunCommand(kBin + " horn --cells " + file, horn), 0);
  EXPECT_EQ(horn.find("Array"), std::string::npos) << horn;
}

TEST(Cli, FuseAndHornShowTheLiftedProgram) {
  const std::string file = WriteTemp("wrap.c", R"(extern unsigned int __VERIFIER_nondet_uint(void);
extern void __VERIFIER_assert(int);
int main(void) {
  unsigned int n = __VERIFIER_nondet_uint(); unsigned int i = 0, z = 0;
  while (i < n) { i++; z = z + 3u; }
  while (i > 0) { i--; z = z - 1u; }
  __VERIFIER_assert(z == 2u * n);
  return 0;
}
)");
  std::string lifted, out;
  ASSERT_EQ(RunCommand(kBin + " fuse --lift --mode guess " + file, lifted), 0);
  EXPECT_EQ(lifted.rfind("// z lifted to the integers (asserted equalities over lifted values checked without "
                         "modulo 2^32, which is stronger)\n"
                         "// guess-and-assume fusion of the loops at lines 5, 6\n",
                         0),
            0u)
      << lifted;
  EXPECT_NE(lifted.find("__VERIFIER_assert((z_int == (2LL * ((__int128)n))));"), std::string::npos) << lifted;
  // Its initial value is the declaration's; the guess of its value after the first loop is an __int128 too.
  EXPECT_NE(lifted.find("  z_int = 0LL;\n"), std::string::npos) << lifted;
  EXPECT_EQ(lifted.find("((__int128)z)"), std::string::npos) << lifted;
  EXPECT_NE(lifted.find("__VERIFIER_nondet_int128()"), std::string::npos) << lifted;
  // gcc takes the program.
  const std::string printed = WriteTemp("lifted.c", lifted);
  EXPECT_EQ(RunCommand("gcc -c -o /dev/null " + printed + " 2>&1", out), 0) << out;
  // horn names what made the clauses in comments.
  std::string horn;
  ASSERT_EQ(RunCommand(kBin + " horn --lift --half under-no-wrap --mode guess " + file, horn), 0);
  EXPECT_EQ(horn.rfind("; z lifted to the integers (asserted", 0), 0u) << horn;
  EXPECT_NE(horn.find("\n; guess-and-assume fusion of the loops at lines 5, 6\n(set-logic HORN)"), std::string::npos)
      << horn;
}

TEST(Cli, ATransformationThatDoesNotApplyIsAUsageError) {
  // No array for --cells, no unsigned value for --lift: the error says why.
  const std::string plain =
      WriteTemp("plain.c", "int main(void) { int x = 1; __VERIFIER_assert(x == 1); return 0; }\n");
  const std::pair<const char*, const char*> cases[] = {
      {"--cells", "--cells: the cell abstraction does not apply: no array"},
      {"--lift", "--lift: nothing to lift: no unsigned int variable"}};
  for (const auto& [flag, says] : cases) {
    std::string out;
    EXPECT_EQ(RunCommand(kBin + " fuse " + flag + " " + plain + " 2>&1", out), 2) << flag;
    EXPECT_NE(out.find(says), std::string::npos) << out;
  }
}

TEST(Cli, AMissingFileIsBadInput) {
  std::string out;
  EXPECT_EQ(RunCommand(kBin + " verify /nonexistent.c 2>&1", out), 2);
}

}  // namespace
}  // namespace fusion
