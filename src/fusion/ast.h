// The C subset as a typed syntax tree. The parser builds it with every implicit C conversion made
// explicit (Cast nodes), so the interpreter, the Horn-clause encoder and the printer share one meaning
// of each expression; the transformations rewrite it and the printer turns it back into C.
#pragma once

#include <compare>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fusion {

// Integers wide enough for every C value the subset computes (unsigned long long sums included).
__extension__ typedef __int128 Int128;

// An integer type of the subset: its width and signedness (char is signed, as with gcc on x86).
struct IntType {
  int bits = 32;
  bool is_signed = true;
  bool operator==(const IntType&) const = default;
};

inline constexpr IntType kInt{32, true};
inline constexpr IntType kUnsigned{32, false};
inline constexpr IntType kLongLong{64, true};
inline constexpr IntType kUnsignedLong{64, false};
// Not a C type: the mathematical integers of lifted values (lift.h). The Horn encoder gives its values no
// range; the interpreter computes them modulo 2^126 (congruent modulo 2^32 still, which keeps every check at
// least as strict as the original's). Printed as __int128.
inline constexpr IntType kWide{126, true};
// Not a C type: the number of an object on the heap (a struct or an integer that malloc made), which a
// pointer to it holds; 0 is the null pointer (heap.h). Signed, so that counting objects never wraps (signed
// overflow is not modelled); printed as long long.
inline constexpr IntType kHeapRef{63, true};

// Smallest and largest value of a type.
Int128 MinOf(IntType t);
Int128 MaxOf(IntType t);
// What C makes of value v converted to type t (wrap-around modulo 2^bits, as gcc does).
Int128 Wrap(IntType t, Int128 v);
// a + b, a - b or a * b (op '+', '-' or '*') modulo 2^128, where Int128 arithmetic would overflow (undefined
// behaviour): Wrap(t, ·) of it is the exact result's for every type t, as 2^bits divides 2^128.
Int128 ModularArithmetic(char op, Int128 a, Int128 b);
// a + b, a - b or a * b when its magnitude is at most `limit` (at most 2^126); a and b must be below 2^126 in
// magnitude.
std::optional<Int128> BoundedArithmetic(char op, Int128 a, Int128 b, Int128 limit);
// The C spelling of a type ("unsigned int").
std::string TypeName(IntType t);
// Decimal text of a value ("-12"), and the value of such a text (nothing unless it is one, within 38 digits).
std::string DecimalText(Int128 v);
std::optional<Int128> ParseDecimal(std::string_view text);
// The type both operands of a binary arithmetic operator convert to (C's usual arithmetic conversions).
IntType CommonType(IntType a, IntType b);
// The type a narrow operand is promoted to before arithmetic (int for char and _Bool).
IntType Promote(IntType t);

// A position in the source, for messages "file:line:col".
struct Loc {
  int line = 0;
  int col = 0;
  auto operator<=>(const Loc&) const = default;
};

// Where a run reads a nondeterministic value: a __VERIFIER_nondet_* call (its position; no name), or an
// uninitialised scalar or array cell (the variable's name; no position). Why: a counterexample found on a
// fused program reads the original's values interleaved with guesses, loop by loop in another order, but
// each site's values in the same order (fusion interleaves loops without reordering one), so the values
// replay on the original site by site.
struct InputSite {
  Loc loc;
  std::string name;
  auto operator<=>(const InputSite&) const = default;
};

// Expression kinds. Assignments are statements, never expressions.
enum class ExprKind {
  kConst,    // value
  kVar,      // name (a scalar)
  kIndex,    // name[args[0]] (an array cell)
  kUnary,    // op args[0]: "-", "!"
  kBinary,   // args[0] op args[1]: + - * / % < <= > >= == != && ||
  kTernary,  // args[0] ? args[1] : args[2]
  kCast,     // (type) args[0]
  kNondet,   // name() : a __VERIFIER_nondet_* call, a fresh value of type
  kCall,     // name(args): a value that procedure `name` (Program::procedures) returns for args; only as the
             // right-hand side of an assignment
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// One expression node; immutable and shared, so rewriting builds new nodes only where something changes.
struct Expr {
  ExprKind kind = ExprKind::kConst;
  IntType type = kInt;  // the C type of the value (comparisons and logic give int)
  Int128 value = 0;
  std::string name;
  std::string op;
  std::vector<ExprPtr> args;
  Loc loc;
};

// Builders for expression nodes (the type is computed by the caller or the parser).
ExprPtr MakeConst(Int128 v, IntType t = kInt);
ExprPtr MakeVar(const std::string& name, IntType t);
ExprPtr MakeIndex(const std::string& array, IntType element, ExprPtr index);
ExprPtr MakeUnary(const std::string& op, ExprPtr a, IntType t);
ExprPtr MakeBinary(const std::string& op, ExprPtr a, ExprPtr b, IntType t);
ExprPtr MakeTernary(ExprPtr c, ExprPtr a, ExprPtr b, IntType t);
ExprPtr MakeCast(IntType t, ExprPtr a);
ExprPtr MakeNondet(IntType t);
ExprPtr MakeCall(const std::string& procedure, std::vector<ExprPtr> args, IntType t);
// !e, with the type int.
ExprPtr MakeNot(ExprPtr e);
// a && b / a || b, with the type int.
ExprPtr MakeAnd(ExprPtr a, ExprPtr b);
ExprPtr MakeOr(ExprPtr a, ExprPtr b);
// Structural equality of two expressions.
bool SameExpr(const ExprPtr& a, const ExprPtr& b);

// Statement kinds.
enum class StmtKind {
  kBlock,     // body
  kAssign,    // lhs = rhs (lhs a kVar or kIndex)
  kHavoc,     // name gets an arbitrary value (uninitialised declaration); an array gets fresh cells
  kAssume,    // __VERIFIER_assume(cond); an abort() is assume(0)
  kAssert,    // __VERIFIER_assert(cond)
  kError,     // reach_error(), __VERIFIER_error(), __assert_fail(...)
  kIf,        // if (cond) body[0] else body[1]
  kLoop,      // while (cond) body[0], with step (if any) run at the end of each iteration and at continue;
              // do-while when do_while is set
  kBreak,
  kContinue,
  kReturn,    // leaves main: the program ends without error
};

struct Stmt;
using StmtPtr = std::shared_ptr<const Stmt>;

// One statement node; immutable and shared like Expr.
struct Stmt {
  StmtKind kind = StmtKind::kBlock;
  ExprPtr lhs;
  ExprPtr rhs;
  ExprPtr cond;
  std::string name;         // kHavoc
  ExprPtr size;             // kHavoc of an array: its size in bytes, printed as the malloc size
  std::vector<StmtPtr> body;
  StmtPtr step;             // kLoop
  bool do_while = false;    // kLoop
  Loc loc;
};

// Builders for statements.
StmtPtr MakeBlock(std::vector<StmtPtr> body);
StmtPtr MakeAssign(ExprPtr lhs, ExprPtr rhs);
StmtPtr MakeHavoc(const std::string& name, ExprPtr size = nullptr);
StmtPtr MakeAssume(ExprPtr cond);
StmtPtr MakeAssert(ExprPtr cond);
StmtPtr MakeError();
StmtPtr MakeIf(ExprPtr cond, StmtPtr then_branch, StmtPtr else_branch = nullptr);
StmtPtr MakeLoop(ExprPtr cond, StmtPtr body, StmtPtr step = nullptr, bool do_while = false);
StmtPtr MakeSimple(StmtKind kind);

// A variable of the program (names are unique: the parser renames shadowing declarations).
struct Var {
  std::string name;
  IntType type;           // for an array, the type of its cells
  bool is_array = false;
};

// A function kept whole instead of inlined at its calls (a recursive one, in a parse that summarizes recursion:
// ParseFile), which its calls (kCall) read as a relation between the arguments and the globals' values at the
// call, and the result and the globals' values at the return. Besides those globals, it reads and writes its own
// variables only.
struct Procedure {
  std::string name;                 // the C function's
  std::vector<std::string> params;  // variables that hold the arguments, which the body never writes
  std::string result;               // the variable its returns assign (a void function's: never set)
  StmtPtr body;                     // from the arguments in params to the value in result
  // The global scalars it reads or writes, itself or through the procedures it calls, and the variables that hold
  // their values at the call (the body starts by copying them, and never writes them).
  std::vector<std::string> globals = {};
  std::vector<std::string> global_ins = {};
};

// A whole program: the variables and the body of main (global initialisers come first in it).
struct Program {
  std::string file;
  std::vector<Var> vars;
  StmtPtr body;
  // Scalars that stand for one cell of an array (normalize.h, ScalarizeConstantCells), by name: the array and
  // the index, so that a counterexample's values for them replay as that cell on the original program.
  std::map<std::string, std::pair<std::string, Int128>> cell_scalars;
  // Variables that number the blocks of a goto dispatch loop (gotos.h): the Horn encoding gives each of their
  // values at a loop head a predicate of its own.
  std::set<std::string> dispatch_vars;
  // The multi-dimensional arrays whose extents after the first are constants, by name, with those extents: the
  // parser lays such an array out flat, and CellName names a cell as C does.
  std::map<std::string, std::vector<Int128>> row_extents;
  // Where recursion was cut (the parser inlines recursive calls to a bounded depth), as `file:line:col: 'f'`:
  // a run that goes deeper tells nothing, so an `unknown` says so.
  std::set<std::string> recursion_cuts;
  // The procedures that kCall expressions call, where recursion is summarized instead of cut (ParseFile).
  std::vector<Procedure> procedures;
  // The arrays of the members of objects on the heap, indexed by object numbers, and the counter of objects
  // (heap.h): a run that reads or writes a member of an object that was never allocated (through null, or a
  // pointer never set) has undefined behaviour there.
  std::set<std::string> heap_fields;
  std::string heap_objects;
  // The bytes of a pointer under the program's data model: a cell's of an array of pointers, whose havoc's size
  // counts bytes as every array's does.
  int pointer_bytes = 8;
  // The variable called name (found by its position where AddVar made it); throws std::out_of_range when there
  // is none.
  const Var& VarNamed(const std::string& name) const;
  // The procedure called name; throws std::out_of_range when there is none.
  const Procedure& ProcedureNamed(const std::string& name) const;
  // A name not yet used by any variable, derived from base; the variable is added.
  std::string AddVar(const std::string& base, IntType type, bool is_array = false);
  // How C names cell `index` of `array`: `a[7]`, or `a[1][3]` for a multi-dimensional one (row_extents).
  std::string CellName(const std::string& array, Int128 index) const;

 private:
  // Every name AddVar gave out, with the variable's position in vars when it did (VarNamed checks it: removing
  // a variable moves the ones after it, and a removed one keeps its name taken).
  std::map<std::string, size_t> positions_;
  std::map<std::string, int> next_suffix_;  // by base: the suffix AddVar tries first
};

}  // namespace fusion
