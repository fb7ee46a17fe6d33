// The parser of the C subset (parser.h) as its files share it, private to them (src/fusion/parser*.cc): the
// Parser class, with its state and the declarations of its member functions, and the types it builds on. One
// file per concept defines the member functions: parser.cc (tokens, top level, scopes), parser_types.cc
// (specifiers, struct and enum definitions, sizeof), parser_statements.cc, parser_arrays.cc,
// parser_structs.cc (struct variables), parser_heap.cc (objects on the heap), parser_pointers.cc (pointers
// into arrays), parser_calls.cc (inlined calls), parser_expressions.cc.
#pragma once

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/stopwatch.h"
#include "fusion/ast.h"
#include "fusion/errors.h"
#include "fusion/gotos.h"
#include "fusion/lexer.h"
#include "fusion/parser.h"

namespace fusion::parsing {

// Helpers whose definitions are skipped: calls to them are understood by name.
inline const std::set<std::string> kKnownHelpers = {"reach_error",    "__VERIFIER_error", "__VERIFIER_assert",
                                                     "__VERIFIER_assume", "__assert_fail", "__assert_perror_fail",
                                                     "__assert",       "abort",            "malloc"};

// Words that qualify a declaration without changing the integer type it declares.
inline const std::set<std::string> kIgnoredSpecifiers = {"const",    "volatile", "extern",      "static",
                                                         "inline",   "__inline", "__inline__",  "restrict",
                                                         "__restrict", "register", "__extension__", "__const"};

// Of those, the ones that change nothing a sequential program computes, wherever they stand: the parser never
// sees them, so that `int *const p`, `const int *const *pp` and `__extension__ typedef ...` read as they would
// without them.
inline const std::set<std::string> kQualifiers = {"const",      "volatile",   "__volatile__", "restrict", "__restrict",
                                                  "__restrict__", "__const",  "register",     "__extension__"};

// A parsed type: an integer type, or void, or a struct (by its tag in the parser's records), or (skipped) a
// union or enum, which holds no integer.
struct ParsedType {
  IntType type;
  bool is_void = false;
  bool is_aggregate = false;  // a union or a floating-point type: no integer, skipped (is_void too)
  bool is_floating = false;   // float or double
  std::string record_tag;     // a struct: its tag, looked up where a variable of it is declared
  int pointers = 0;           // a typedef of a pointer to a struct (`typedef struct node *SLL;`): 1
};

// What a pointer to an object on the heap points to: a struct (by its tag) or, tag empty, one integer of type
// cell. Such a pointer holds the object's number (kHeapRef); each member of a struct is an array over the
// numbers, so that `p->m` is the cell p of m's array (heap.h).
struct Pointee {
  std::string tag;
  IntType cell = kInt;
  bool operator==(const Pointee&) const = default;
};

// A struct type: its integer members, flattened in declaration order (a member of a nested struct is named by
// its path, "inner.x"). A variable of it is one variable per member, so that loops, guesses and invariants
// see plain scalars and arrays.
struct Record {
  std::string name;                                      // "struct S", for messages
  std::vector<std::pair<std::string, IntType>> members;  // path and type (kHeapRef for a pointer)
  std::map<std::string, Pointee> pointers;               // the pointer members, by path: what they point to
  std::string unsupported;  // why a variable of it cannot be modelled (a pointer, array or union member)
};

// What a name in scope stands for: a program variable, or a struct variable (record set), whose members are
// variables of their own, in the same scope under "<name>.<path>", or a variable outside the subset (refused
// set: why), which is an error only where it is used (the headers of a `.i` file declare such globals).
struct Binding {
  std::string var;
  const Record* record = nullptr;
  std::string refused;
  // An array declared with a constant size: its size in bytes, for `sizeof a` (not a pointer's, nor an
  // array parameter's, which C measures as a pointer).
  std::optional<Int128> array_bytes;
  // An enumeration constant: its value, a constant of type int (var is empty).
  std::optional<Int128> enumerator;
  // A pointer given `&v` (var is v): `*p` reads and writes v, p alone is refused (`refused`). A pointer into an
  // array, given `&a[e]`, `a + e` or another such pointer (var is a, cell_index the variable that holds the
  // index of the cell it points to, which moving the pointer changes): `*p` and `p[i]` are cells of a, and
  // pointers into the same array compare and subtract as their indices do. A pointer declared without a value
  // and later assigned one into an array has var empty until that assignment, the first in the source.
  bool points_to_var = false;
  std::string cell_index = {};
  // A struct variable whose address the file takes (record set, var empty): the variable that holds the number
  // of the object on the heap that it is, whose members are its members.
  std::string object = {};
};

// The arguments of a call of a function of the file (ParseArguments): what each passes as a value (an array
// its name, the address of a cell `&a[e]` its index e), and for an address `&v` or `&a[e]` the variable v or
// the array a (empty for an argument that is no address).
struct Arguments {
  std::vector<ExprPtr> values;
  std::vector<std::string> pointees;
  // The arrays of structs passed by name (`init(a, n)`), by argument index: their struct, and the array of
  // each member by its path.
  std::map<size_t, std::pair<const Record*, std::map<std::string, std::string>>> struct_arrays = {};
};

// A function of the file other than main, inlined at each call: where its parameter list and body are.
struct FunctionDef {
  std::string name;
  Loc loc;
  size_t params = 0;          // token index of its '('
  size_t body = 0;            // token index of its body's '{'
  size_t body_end = 0;        // token index of its body's '}'
  bool returns_value = false;
  IntType result_type = kInt;  // of a pointer's result, the type of the cells it points to
  bool returns_pointer = false;  // a pointer into an array (the one its returns point into)
  Pointee result_pointee = {};   // of a pointer to objects on the heap (result_type kHeapRef), what they are
  std::string unsupported;    // why it cannot be inlined; empty if it can
};

// A call being inlined: the function, where its value goes (null: discarded, or none), whether it returned.
struct InlineFrame {
  const FunctionDef* fn = nullptr;
  ExprPtr result;               // of a pointer's result, the index of its cell
  bool returned = false;        // by a `return` that ends the body
  bool returns_early = false;   // a `return` before the end, parsed as a kReturn that Inline lowers
  std::string result_array = {};  // the array that a pointer result points into, by the returns parsed
};

// An inlined body's early returns (kReturn: main's own returns are not in it) lowered to a flag, since the
// body goes on into the caller: `return` sets the flag and, in a loop, breaks out of it; see LowerBlock.
// may_return: set when s contains a return.
StmtPtr LowerReturns(const StmtPtr& s, const ExprPtr& flag, bool in_loop, bool& may_return);

// The statements of a block with their returns lowered: after one that may return, a loop body leaves the
// loop if the flag is set (an inner loop's break got it this far; also after the body's last statement), and
// elsewhere the rest of the block runs only while the flag is 0.
StmtPtr LowerBlock(const std::vector<StmtPtr>& items, const ExprPtr& flag, bool in_loop, bool& may_return);

// Recursive-descent parser over the token list; one instance parses one file.
class Parser {
 public:
  // When parsing must end (Parse's time_limit_s), checked at each inlined call, where the time goes.
  struct Deadline {
    bool Passed() const { return clock.Seconds() >= seconds; }
    double seconds;  // from the start of Parse; infinity: none
    common::Stopwatch clock = {};
  };
  Parser(std::string file, std::vector<Token> toks, DataModel model, bool integers_on_heap, bool summarize_recursion,
         Deadline deadline);

  // Parses the whole translation unit. main's body comes last, so that it may call functions defined after it.
  Program Run();

 private:
  // Statements and expressions nested deeper than this are refused: the parser and every later pass
  // (printer, interpreter, Horn encoding) recurse over the tree, and a deeper one would overflow the stack
  // (tests/bad_inputs/loopfuse/deep_*.c). Reducer files that unroll a loop nest an if in the last for each
  // iteration (gj2007.c.i.p+nlh-reducer.c: 138 blocks, about 280 levels here); 1024 levels ran in the
  // Release build, this leaves room for the sanitizers' larger frames.
  static constexpr int kMaxDepth = 512;
  // Inlined calls beyond this many are refused: a few functions that each call the next twice would
  // otherwise make a program of exponential size.
  static constexpr int kMaxInlinedCalls = 10000;
  // How deep a cycle of recursive calls is inlined, and the most calls its levels may make together
  // (RecursesTooDeep).
  static constexpr int kMaxRecursionDepth = 64;
  static constexpr Int128 kMaxRecursionCalls = 1024;
  // Cells of an initialised or global array, each set by an assignment of its own.
  static constexpr int kMaxInitialisedCells = 4096;
  // Dimensions of an array at most: beyond, the nesting of braces and of index arithmetic would be unbounded.
  static constexpr size_t kMaxDimensions = 16;
  [[noreturn]] void FailTooDeep(Loc loc) const;
  // Counts one level of nesting while it lives.
  struct DepthGuard {
    DepthGuard(Parser& p, Loc loc) : parser(p) {
      if (parser.depth_ >= kMaxDepth) parser.FailTooDeep(loc);
      ++parser.depth_;
    }
    ~DepthGuard() { --parser.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    Parser& parser;
  };

  const Token& Peek(int k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool AtEnd() const { return Peek().kind == TokKind::kEnd; }
  bool Is(const std::string& text, int k = 0) const {
    const Token& t = Peek(k);
    return (t.kind == TokKind::kPunct || t.kind == TokKind::kIdent) && t.text == text;
  }
  const Token& Next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool Accept(const std::string& text) {
    if (!Is(text)) return false;
    Next();
    return true;
  }
  void Expect(const std::string& text) {
    if (!Accept(text)) {
      FailSyntax(file_, Peek().loc, "expected '" + text + "' before '" + Peek().text + "'");
    }
  }
  std::string ExpectIdent() {
    if (Peek().kind != TokKind::kIdent) {
      FailSyntax(file_, Peek().loc, "expected an identifier before '" + Peek().text + "'");
    }
    return Next().text;
  }
  // Skips a balanced group starting at the current opening bracket.
  void SkipBalanced();
  // Skips __attribute__((...)) and __asm__(...) annotations.
  void SkipAttributes();
  // Skips tokens up to the next ';' (or also ',': at_comma) outside brackets, which it leaves next.
  void SkipToEnd(bool at_comma);
  // Skips tokens up to and including the next ';' outside brackets.
  void SkipDeclaration();

  bool IsTypeStart(int k = 0) const;

  // Parses declaration specifiers; union types are unsupported unless skip_aggregates. A struct's members are
  // recorded (ParseStructSpecifier), an enum's constants bound (ParseEnumSpecifier); whoever cannot take a
  // struct refuses its record_tag.
  std::optional<ParsedType> ParseSpecifiers(bool skip_aggregates);

  // After `struct` or `enum`: its tag (empty if none; attributes around it skipped) and the token where the tag
  // or body begins. Neither a tag nor a body ('{') is a syntax error naming `kind`.
  std::pair<std::string, Token> ParseTag(const std::string& kind);

  // The rest of a struct specifier after `struct`: its tag, and its member list if one follows, recorded in
  // records_ (an anonymous struct under a tag made of its location). Returns the tag. The headers of a `.i`
  // file define structs of pointers, arrays and unions: such a struct is recorded as unsupported, refused
  // only where a variable of it is declared.
  std::string ParseStructSpecifier();

  // The rest of an enum specifier after `enum`: its tag, and its list of constants if one follows, each bound in
  // the innermost scope as a constant of type int (C's rule: the value given, else one more than the one before,
  // from 0). Returns the enum's own type as gcc makes it: unsigned int where no constant is negative, else int.
  // A constant whose value is not a constant expression, or lies outside int, is refused where it is used when
  // at_top_level (the headers of a `.i` file define enums that main never reads), else at once.
  IntType ParseEnumSpecifier(bool at_top_level);

  // One member declaration of a struct's body, through its ';', added to record: integer members, members of a
  // struct of integers (flattened), and pointers to a struct or an integer (objects on the heap). Anything else
  // marks the record unsupported and is skipped.
  void ParseMemberDeclaration(Record& record);

  // One top-level item: typedef, declaration, prototype or function definition.
  void TopLevel();

  // Skips the body of def at its '{': it is parsed later, main's last and the others' at each call. Brackets
  // that do not balance are reported where parsing the body meets them, not at the end of the file.
  void SkipBody(const FunctionDef& def);

  // Adds a variable to the innermost scope and the program; returns its unique name, made from `base` (a C
  // identifier: a struct's member "s.n" is the variable s_n) or, without one, from the name.
  std::string Declare(const std::string& name, IntType type, bool is_array, Loc loc, const std::string& base = "");

  // What a source name (or a struct member's "<name>.<path>") refers to, or null.
  const Binding* FindBinding(const std::string& name) const;
  // The program variable a source name refers to, or null (also for a struct variable).
  const Var* Find(const std::string& name) const;
  const Var& Lookup(const Token& t);

  StmtPtr ParseBlock();

  // A statement whose scope ends with it (the body of if, while, for).
  StmtPtr ParseScopedStatement();

  // What the expressions of one statement leave to run before it (WithCallsHoisted): the calls of functions of
  // the file that a statement must run, and the assignments inside them (`x++`, `a[i] = v`, `(c = x)`), in
  // C's order. Each assignment's store is statements[begin, end), to its variable (an array's name for a cell).
  struct Hoisted {
    struct Store {
      std::string var;
      std::string spelling;  // var's name in the source
      size_t begin = 0, end = 0;
      Loc loc;
    };
    std::vector<StmtPtr> statements;
    std::vector<Store> stores;
  };

  // How far a Hoisted's statements and stores reach at a point of the parse.
  struct HoistedMark {
    size_t statements = 0;
    size_t stores = 0;
  };

  // Runs parse with the calls of functions of the file that its expressions make where a statement must run
  // them (a body that is more than one `return`) inlined into `hoisted`, each into a variable that the
  // expression reads instead, and the assignments inside them stored there (AssignInExpression): the
  // statements run before the one being parsed, which evaluates each exactly once, as C does. For the
  // expressions of an if's or a loop's condition (the loop runs them again before each test), a declaration, a
  // return or an expression statement. Right of && or ||, in a branch of ?: and after a comma operator, an
  // operand's statements run where C evaluates it, after the operand before it (ShortCircuit, ParseExpr,
  // ParseCommaExpr). A variable that an assignment inside the expressions writes may appear nowhere else in
  // them but where C sequences the two that way (SequenceAfter): C leaves the others' order unsequenced
  // (`i++ + i`, `a[i] = i++`).
  template <typename Parse>
  auto WithCallsHoisted(Hoisted& hoisted, Parse parse) {
    struct Restore {
      Parser& p;
      Hoisted* hoisted;
      ~Restore() { p.hoisted_ = hoisted; }
    } restore{*this, std::exchange(hoisted_, &hoisted)};
    auto parsed = parse();
    RequireSequenced(hoisted, Mentions(parsed));
    return parsed;
  }

  // The variables and arrays that s, or e, reads or writes.
  static std::set<std::string> Mentions(const StmtPtr& s);
  static std::set<std::string> Mentions(const ExprPtr& e);

  // Refuses a variable that an assignment inside an expression writes and the rest of the statement (`rest`:
  // what it mentions besides the hoisted statements) or another hoisted statement reads or writes.
  void RequireSequenced(const Hoisted& hoisted, const std::set<std::string>& rest) const;

  // s, after the hoisted statements (if any) that it reads; s keeps the location of its first token, loc.
  static StmtPtr Preceded(Hoisted hoisted, StmtPtr s, Loc loc);

  // The loop `while (c) body` (do-while if do_while; `step` at the end of each iteration and at continue)
  // whose condition needs the hoisted statements to run before each test: once before the loop, and again
  // after each iteration's step.
  static StmtPtr LoopTesting(Hoisted hoisted, const ExprPtr& c, const StmtPtr& body, StmtPtr step, bool do_while);

  StmtPtr ParseStatement();

  StmtPtr ParseStatementInner();

  // Expression statements joined by C's comma operator (`i = 0, j = n`, `i++, j--`), each run in turn with
  // the calls it makes hoisted before it alone; a single one as it is.
  StmtPtr ParseExpressionList();

  // The rest of a switch after `switch`: its cases must label statements of its block itself (no Duff's
  // device), and its value is converted to its promoted type, as are the cases' constants.
  StmtPtr ParseSwitch(Loc loc);

  // A function's body, just parsed, with its labels and gotos (the last of jump_marks_, popped) lowered.
  StmtPtr WithJumpsLowered(const StmtPtr& body);

  // Whether `label:` labels `goto label;` in the body being parsed (labels are the function's): a run that
  // gets there stays there forever, so it reaches no error, as `assume(0)` (loop-invgen's `STUCK: goto STUCK;`,
  // and `goto STUCK;` elsewhere in the function).
  bool IsStuckLabel(const std::string& label) const;

  // A declaration with its declarators, ending with ';'. Uninitialised scalars and arrays get havoc.
  StmtPtr ParseDeclaration();

  // The declarators of an `extern` declaration inside a function, after its specifiers `spec`: each names the
  // global of the file (a scalar or an array), and a function's prototype declares nothing the parser needs.
  // Until 2026-12-05 `extern` was skipped and the name became a fresh local, which shadowed the global with a
  // nondeterministic value (a wrong `false`). An extern object that the file does not define is outside the
  // subset: its value is not the program's.
  StmtPtr ParseExternDeclarators(const ParsedType& spec);

  // The declarators of a declaration of static scalars inside a function, after its specifiers `spec`: each
  // one variable of the program, whichever call or iteration declares it, set once before main runs (to its
  // initialiser, a constant, or 0) and kept between calls, as C's static storage is. Until 2026-12-05
  // `static` was skipped, so a static counter was set again at every call and loopfuse proved a reachable
  // error unreachable. Static arrays, structs and pointers are outside the subset.
  StmtPtr ParseStaticDeclarators(const ParsedType& spec);

  // The rest of an array declarator after its '[' (size, then any initialiser), declared: fresh cells, set
  // where an initialiser gives values. An initialised array (or a global one: `zeroed`) has every cell set,
  // the rest to 0 as C does: one assignment per cell up to kMaxInitialisedCells cells, beyond that a loop
  // for the zeros (a loop of its own, which fusion may take with the program's first).
  // A multi-dimensional array `T a[D0][D1]...` is one array of D0 * D1 * ... cells, row after row as C lays it
  // out, `a[i][j]` its cell i * D1 + j (ParsePostfix; inner_extents_ holds D1, ...); an extent that is not a
  // constant is taken when the declaration runs, into a variable of its own.
  std::vector<StmtPtr> ParseArrayDeclarator(const std::string& name, IntType type, Loc loc, bool zeroed);

  // The cells that a multi-dimensional array's initialiser sets, after its '{' through its '}', by their place
  // in the array laid out flat (0 for those it leaves out): a brace inside starts the next element of its
  // dimension (`{{1, 2}, {3}}`: a row each), and without inner braces the values fill cells in order (`{1, 2, 3}`).
  std::vector<ExprPtr> ParseBracedCells(const std::string& name, IntType type, const std::vector<ExprPtr>& inner,
                                        Loc loc);

  // The declarator of a variable of struct type after its name (`[size]` for an array of structs): one
  // variable per member, "<name>.<path>" in scope, an array of the size for an array of structs. Globals are
  // zeroed, locals fresh. A pointer to the struct (`pointers` 1) is a pointer to objects on the heap
  // (DeclareHeapPointer). Initialisers, pointers to pointers and whole-struct uses are outside the subset.
  std::vector<StmtPtr> DeclareStructVariable(const ParsedType& spec, const Token& name_tok, int pointers,
                                             bool global);

  // A whole struct in an assignment (`t = s;`, `*p = a[i];`): its struct, the statements that fix where it is
  // (a pointer or an index taken into a variable first, so that a member written cannot move the rest), and
  // the cell of each member by path and type.
  struct StructPlace {
    const Record* record = nullptr;
    std::vector<StmtPtr> before;
    std::function<ExprPtr(const std::string&, IntType)> cell;
  };

  // Whether the tokens ahead name a whole struct (ParseStructPlace): `*p` for p a variable that points to
  // objects of a struct, or a struct variable, or a cell of an array of them, that no '.' or '->' follows.
  bool AtWholeStruct() const;

  // The whole struct ahead (AtWholeStruct).
  StructPlace ParseStructPlace();

  // `target = source;` of whole structs after the '=': each member assigned in turn (the members are cells
  // apart, so none written changes one still to read).
  std::vector<StmtPtr> AssignStruct(const StructPlace& target, const Token& at);

  // A struct's initialiser after its '=', `{1, {2, 3}, &s}` (nested braces for the members of a nested struct, or
  // none: C's brace elision) or a whole struct (`= t`, AssignStruct): the assignment of each value to its member,
  // which `cell` makes from the member's path and type. The members a list does not reach keep the zero they were
  // given; a designator (`.m = v`) and any other value (`= f()`) are refused.
  std::vector<StmtPtr> ParseStructInitialiser(const Record& record,
                                              const std::function<ExprPtr(const std::string&, IntType)>& cell);

  // The values of the members from `next` up to `end`, all under the path `prefix` (a nested struct's, with its
  // '.'; empty at the top), until the list's '}': `first` is false once the list has a value (a ',' comes
  // before the next; that of the members of a nested struct that the list gives without braces is taken before
  // they are).
  void InitialiseMembers(const Record& record, const std::function<ExprPtr(const std::string&, IntType)>& cell,
                         const std::string& prefix, size_t end, size_t& next, bool& first,
                         std::vector<StmtPtr>& out);

  // The declarator of a pointer to objects on the heap after its name: a scalar (`struct S *p;`, with a value
  // optionally) or an array of them (`struct S *a[N];`, `int *a[N];`), holding object numbers (kHeapRef).
  // Globals are null, locals fresh.
  std::vector<StmtPtr> DeclareHeapPointer(const Token& name_tok, const Pointee& pointee, bool global);

  // What the pointer to objects on the heap e points to: e a variable or cell that holds such pointers, or a
  // choice between them; nothing for null and for any other expression.
  std::optional<Pointee> PointeeOf(const ExprPtr& e) const;

  // Whether the name at token k, past any '(' and '*' (`*(*p).next`), may begin a pointer to objects on the
  // heap: a variable that holds them, or a struct variable (whose members may).
  bool AtHeapPointer(int k) const;

  // value (at token `at`) as a pointer to objects of `pointee`: a constant 0 is null; refused unless it is
  // null or points to such objects.
  ExprPtr HeapValue(const ExprPtr& value, const Pointee& pointee, const Token& at) const;

  // "struct S" or "int", for messages.
  static std::string PointeeName(const Pointee& p);

  // The assignment of the value after '=' to target, a pointer to objects on the heap: an allocation, null
  // (`0`, `NULL`, `(void *)0`) or a pointer to the same type of object.
  StmtPtr AssignHeapPointer(const ExprPtr& target, const Token& at);

  // Whether a call of an allocator comes next, cast to a pointer type or not (`(struct S *) malloc(...)`).
  bool AtAllocationCall() const;

  // The allocation ahead (AtAllocationCall) for target, a pointer to objects of `pointee`: a new object,
  // numbered one above the last (so never null, as SV-COMP's allocations never fail, and never one still in
  // use). Its members are arbitrary (cells of the member arrays that nothing wrote), calloc's zero. Only the
  // block's first object is reachable: a pointer to objects is never moved or indexed, so the size is not
  // read (it may not call a function or assign, whose effects would be lost).
  StmtPtr AllocateObject(const ExprPtr& target, const Pointee& pointee);

  // A new object of `pointee` whose number target takes: the counter's next (never null, never an object in
  // use); its members zero where zeroed (calloc's, a global struct's), else arbitrary, as the heap's cells start.
  StmtPtr NewObject(const ExprPtr& target, const Pointee& pointee, bool zeroed, const Token& at);

  // The declarator of a struct variable whose address the file takes (`&s`, addressed_), after its name: an
  // object on the heap, so that a pointer to it is one to any object of its struct (`struct T *p = &s;`,
  // `f(&s)`, `{2, &inner}`), and `s.m` is its member, as `p->m` is. Globals are zero, locals arbitrary, as C has
  // them; an initialiser sets the members it names and zeroes the others.
  std::vector<StmtPtr> DeclareStructObject(const Record& record, const std::string& tag, const Token& name_tok,
                                           bool global);

  // The declarator of an integer variable whose address the file takes, after its name, where integers are on
  // the heap (integers_on_heap_): an object, made where it is declared (zero if global, arbitrary if local, as
  // C has it), whose one cell is the variable's value, and `&x` its number.
  std::vector<StmtPtr> DeclareIntegerObject(const Token& name_tok, IntType type, bool global);

  // Binds `name_tok` to a variable that is an object on the heap of `pointee` (a struct variable's, whose
  // struct is record, or an integer variable's), and appends to `out` what makes the object: zero where
  // zeroed, else arbitrary. The binding holds the variable with its number.
  const Binding& BindObject(const Token& name_tok, const Pointee& pointee, const Record* record, bool zeroed,
                            std::vector<StmtPtr>& out);

  // The value of an integer variable on the heap (DeclareIntegerObject): its object's cell.
  ExprPtr IntegerOfObject(const Binding& b);

  // The cells of the members of the object of struct `tag` whose number `base` holds, by path and type.
  std::function<ExprPtr(const std::string&, IntType)> ObjectMembers(const std::string& tag, const ExprPtr& base);

  // The members of the objects `pointee` stands for (an integer object: one, path empty), with their types;
  // refused (at `at`) for a struct not yet defined or outside the subset.
  std::vector<std::pair<std::string, IntType>> HeapMembers(const Pointee& pointee, const Token& at) const;

  // Whether `array` holds a member of the objects on the heap (HeapField), indexed by their numbers.
  bool IsHeapField(const std::string& array) const;

  // The index of the cell that the pointer bound into an array `b` points to (BindPointer), of its type.
  ExprPtr CellIndex(const Binding& b) const;

  // Binds `name_tok`, a pointer to a pointer to objects of `pointee` (`struct node **pp`, `DLL *head`), given
  // the address of `target` (at `at`): a variable or a cell that holds such pointers (`&head`, `&a[i]`,
  // `&p->next`), which `*name` reads and writes (BindPointer); the index of the cell, if any, is returned.
  std::optional<Var> BindHeapPointerAddress(const Token& name_tok, const std::string& target, const Pointee& pointee,
                                            Loc at);

  // The counter of objects on the heap, the number of the last one allocated (0 before any: null).
  ExprPtr HeapObjects();

  // The array over object numbers that holds member `path` (of type `type`) of the objects `pointee` stands for
  // (path empty for integer objects), made at its first use. Its cells start arbitrary: an object's members
  // are arbitrary until written. A member that points to objects makes the array a heap slot.
  std::string HeapField(const Pointee& pointee, const std::string& path, IntType type);

  // `->m` (through nested members, `->inner.x`) at the arrow after e, a pointer to structs on the heap, or `.m`
  // after `(*e)`: the member's cell of the object e points to.
  ExprPtr HeapMember(const ExprPtr& e);

  // `*e` at its '*' for e a pointer to an integer on the heap (AtHeapPointer(1)): that integer.
  ExprPtr DereferenceHeap();

  // A comparison `a op b` at op where a or b is a pointer to objects on the heap: == and != with another such
  // pointer or null (a constant 0).
  ExprPtr CompareHeapPointers(const Token& op, const ExprPtr& a, const ExprPtr& b) const;

  // An array declarator's size after its '[', through its ']'; null for `[]`.
  ExprPtr ParseArraySize();

  // Declares the array `name` (variable made from `base`, as Declare) of n cells (null: as many as values)
  // and returns what sets its cells (ParseArrayDeclarator).
  std::vector<StmtPtr> DeclareArray(const std::string& name, const std::string& base, IntType type, Loc loc,
                                    const ExprPtr& n, const std::vector<ExprPtr>& values, bool initialised,
                                    bool zeroed);

  // Statements that set the cells `first` to end - 1 of `array` (of type `type`) to 0: a loop over a fresh
  // counter of end's type.
  std::vector<StmtPtr> ZeroCells(const std::string& array, IntType type, Int128 first, const ExprPtr& end);

  // The bytes of a value of type t as C stores it: a pointer to an object on the heap (an object number here)
  // takes a pointer's bytes, 4 or 8 by the data model.
  Int128 Bytes(IntType t) const;

  // Notes the bytes of the array just declared as `name`, of a constant number of cells, for sizeof.
  void NoteBytes(const std::string& name, Int128 cells, IntType t);

  // The size in bytes of n cells of type t, as printed in the malloc of the transformed program.
  ExprPtr ArrayBytes(ExprPtr n, IntType t) const;

  // "malloc(bytes)", "alloca(bytes)" or "calloc(count, bytes)" after '=': the pointer becomes an array with
  // fresh cells, for calloc all zero (set by a loop over the cells, as a global array's zeros are).
  StmtPtr ParseMalloc(const std::string& array, IntType type);

  // `free(p)` after its '(': p an array, a pointer into one or a pointer to an object on the heap (`free(*head)`
  // too), optionally cast. Nothing happens: a cell read after its block is freed is undefined behaviour, which
  // SV-COMP's unreach-call tasks do not have, as for an access out of bounds.
  StmtPtr ParseFree(const Token& call);

  // Skips a cast to a pointer type ahead (`(int *)`, `(void *)`), where there is one; the value it converts
  // stays a pointer into the same cells (an allocation's or an array's).
  void AcceptPointerCast();

  // Whether `name` is a function that allocates an array: malloc, calloc, alloca and GCC's __builtin_alloca.
  static bool IsAllocator(const std::string& name);

  // The right-hand side of '=' for a scalar of type t (a nondet call included).
  ExprPtr ParseAssignmentValue(IntType t);

  // An expression statement: assignment, compound assignment, ++/--, a call of a known helper, or a call of a
  // function of the file (inlined).
  StmtPtr ParseSimpleStatement();

  // A value that nothing stores, computed all the same (into a variable of its own): an access out of bounds
  // or a division by zero in it stops a concrete run, as it is undefined in C.
  StmtPtr Evaluated(const ExprPtr& value);

  // Whether the expression statement ahead (up to its ';', the ',' that joins it to the next, or the ')' that
  // ends a for's clauses) is a value that nothing stores: outside parentheses and brackets it joins terms by
  // binary operators or `?:`, and assigns nothing there.
  bool AtUnusedValue() const;

  // C's assignment operators, ++ and -- among them.
  static inline const std::set<std::string> kAssignmentOperators = {"=",  "+=", "-=",  "*=",  "/=", "%=", "&=",
                                                                    "|=", "^=", "<<=", ">>=", "++", "--"};

  // A fresh scalar of type t, named from base: a variable the parse adds (a call's value, a loop's flag, a
  // temporary of an assignment inside an expression).
  ExprPtr FreshVar(const std::string& base, IntType t);

  // The store of assignment operator op ("=", "+=", "<<=", ...; "++" and "--" with rhs 1) into target, a
  // scalar or an array cell, with C's conversions made explicit.
  StmtPtr Store(const Token& op, const ExprPtr& target, const ExprPtr& rhs);

  // An assignment inside an expression, `target op rhs` (`target++` and `target--` when postfix, with rhs 1;
  // `spelling` names target in the source): where statements may run first (WithCallsHoisted), its store runs
  // there, and the expression reads its value: target's before the store for a postfix ++ or --, else after
  // it (a constant stays one), from a fresh variable.
  ExprPtr AssignInExpression(const Token& op, ExprPtr target, const ExprPtr& rhs, bool postfix,
                             const std::string& spelling);

  // Whether the tokens ahead are a call of a function defined in the file that is all of its statement or of
  // the value assigned (followed by ';', ',' or ')'): inlined as statements. A call inside a larger expression
  // is an expression call (ParseExpressionCall).
  bool AtInlinedCall() const;

  // What `&v`, `&s.m` or `&a[e]` points to: the variable (v, or the member's) or the array a, and what a pointer
  // to it passes as a value (v itself; for a cell, its index e).
  struct Address {
    std::string pointee;
    ExprPtr value;
  };
  // The address at '&', which must end at ',' or `end` (`where` it may stand, for the message).
  Address ParseAddress(const char* end, const char* where);

  // Binds `name` (declared at `loc`) in the innermost scope as a pointer to `pointee`, a variable or an array of
  // the pointer's type: `*name` reads and writes it (Dereference), the pointer alone is refused. For an array,
  // the cell's index is kept in a new variable, returned, which the caller assigns the index that the address
  // computed.
  std::optional<Var> BindPointer(const std::string& name, Loc loc, const std::string& pointee);

  // A pointer into an array as the parse holds it: the array, and the index of the cell it points to.
  struct PointerValue {
    std::string array;
    ExprPtr index;
    Loc loc;
  };

  // The pointer bound into an array that `name` is (BindPointer), or null; also null for one declared without a
  // value that no assignment has pointed into an array yet.
  const Binding* CursorNamed(const std::string& name) const;

  // Whether the pointer `name` declared without a value ahead (at `int *p;`) is assigned a pointer into an array
  // (`p = a;`, `p = &a[i]`, `for (p = b + 1; ...)`) rather than a malloc'd array, by the first `p =` in the rest
  // of the block's tokens (none: an array, as before). A wrong guess is refused where `p` is assigned.
  bool AssignedAPointerLater(const std::string& name) const;

  // Whether token k starts what gives a pointer a block of its own: an allocator's call (IsAllocator) or a cast
  // (of one). ParseMalloc takes it, refusing a cast of anything else.
  bool AtAllocation(int k) const;

  // The token index of the '}' that closes the block being parsed (the end of the tokens at the top level).
  size_t EndOfBlock() const;

  // A pointer value ahead for the pointer `name` to cells of `type`: refused if it is none, or into an array of
  // another type.
  PointerValue ParsePointerFor(const std::string& name, IntType type);

  // `p = v` at v for a pointer declared without a value (`int *p;`) that no assignment has pointed anywhere yet:
  // p points into v's array from here on in the source.
  StmtPtr PointCursor(const std::string& name, const Token& at, IntType type);

  // Declares the pointer named by name_tok, to cells of `type`, without a value: the assignment that first
  // points it into an array (PointCursor) says which; until then, reading it is refused.
  void DeclareUnpointed(const Token& name_tok, IntType type);

  // Whether token k starts an initialiser that points a pointer into an array: a pointer value (AtPointerValue),
  // a string literal, or, where `calls` may run (not at file scope), a call of a function of the file.
  bool AtPointerInitialiser(int k, bool calls) const;

  // Declares the pointer named by name_tok, to cells of `type`, with the initialiser ahead, after its '='
  // (AtPointerInitialiser): the statements that point it. A string literal is an array of its own (`string_s`,
  // with no name in C) set to its characters and the 0 after them; a call returns a pointer (ParsePointerCall).
  std::vector<StmtPtr> DeclarePointerInto(const Token& name_tok, IntType type);

  // The number of tokens of the null pointer constant at token k: `0`, `NULL` where the file declares no such
  // name (the preprocessor replaces one it defines), a cast of one to a pointer type (`(void *)0`), one in
  // parentheses (`nesting` counts those looked into: a few at most, as every operand asks); 0 where none
  // starts there.
  int NullPointerAt(int k, int nesting = 0) const;

  // Whether a null pointer constant compared with a pointer into an array starts here (`NULL == p`, `0 != p +
  // 1`), where an operand of precedence above min_prec begins: an equality operator binds there.
  bool AtNullComparison(int min_prec) const;

  // `NULL == p` or `NULL != p` ahead (AtNullComparison): a constant, as a pointer into an array is never null.
  ExprPtr ParseNullComparison();

  // Refuses, at `at`, a comparison with null of a pointer into `array` that may be null (maybe_null_). Any other
  // points into an array that exists: never null (and SV-COMP's allocations never fail).
  void RequireAllocated(const std::string& array, Loc at) const;

  // The condition of an if, while or do after its '(' (calls in it hoisted): a pointer into an array alone
  // (`if (p)`) is true, as it is never null.
  ExprPtr ParseCondition(Hoisted& hoisted);

  // The array that the name at token k points into as a pointer value: a pointer into an array, or a
  // one-dimensional array's own name (C converts it to a pointer to its first cell); empty for anything else,
  // a cell (`a[i]`, `p[i]`) and a call included.
  std::string PointerTargetAt(int k) const;

  // Whether a pointer value into an array starts at token k: such a name or `&` of a cell, and where
  // `parenthesised`, either in parentheses that hold a pointer value alone (`(a + k)`; not `(p < q)` nor `(p -
  // q)`, an integer). `nesting` counts the parentheses looked into after a '-' (OffsetsAloneUntilClose).
  bool AtPointerValue(int k = 0, bool parenthesised = true, int nesting = 0) const;

  // Whether the tokens from k to the ')' that closes the parentheses they are in join their terms by operators
  // that bind at least as tightly as `+` (`a + 2 * k`), none a `-` before a pointer (a difference; past a few
  // parentheses looked into, `- (` is taken for one): a pointer value, where the first term is one.
  bool OffsetsAloneUntilClose(int k, int nesting) const;

  // A pointer value into an array ahead (AtPointerValue): a term, then, with_offsets, integers added or
  // subtracted (a pointer after '-' ends it: that is a difference of pointers, which the caller takes).
  PointerValue ParsePointerValue(bool with_offsets = true);

  // A pointer value ahead that must point into `array` (the one a pointer `name` points into).
  PointerValue ParsePointerInto(const std::string& array, const std::string& name);

  // An operand that starts with a pointer value (AtPointerValue), where an integer is wanted: pointers into one
  // array compared (`p < a + n`) or subtracted (`p - a`), as their indices, the difference a ptrdiff_t. An
  // operator that binds as tightly as `min_prec` or more would take the pointer alone: refused, as is any
  // other use of a pointer as a value.
  ExprPtr ParsePointerOperand(int min_prec);

  // A statement that moves pointer `name` within its array (`p = q + 1`, `p++`, `--p`, `p += k`) from `op` on;
  // prefix operators are taken before the name. The binding is a copy: what follows `op` may inline calls.
  StmtPtr MoveCursor(Binding cursor, const std::string& name, const Token& op);

  // Whether the argument ahead, which starts with a pointer value (AtPointerValue), is a pointer rather than an
  // integer made of pointers (`p < q`, `p - a`): no comparison, condition or difference of pointers outside
  // parentheses before the ',' or ')' that ends it.
  bool ArgumentIsPointer() const;

  // Whether parameter k of fn is a pointer (`int *p`, not `int p[]`) that fn's body moves (`p++`, `*p--`,
  // `++p`, `p = q`, `p += 2`), by its tokens: given an array's name, it is then a pointer into that array, not
  // another name of the array. A move missed here is refused where it is parsed, never misread.
  bool MovesPointerParameter(const FunctionDef& fn, size_t k) const;

  // Whether tokens [begin, end) move the pointer `name` (`p++`, `*p--`, `++p`, `p = q`, `p += 2`; not `*p = v`,
  // `p[i]++` or `++p[i]`).
  bool MovedIn(const std::string& name, size_t begin, size_t end) const;

  // Whether the rest of the block being parsed moves the pointer `name` (MovedIn).
  bool MovedInRestOfBlock(const std::string& name) const;

  // A call's arguments of fn after its '(', through its ')'. An argument that is an array's bare name stands for
  // the array (C passes its address), or, given to a pointer that fn moves, a pointer to its first cell;
  // anywhere else an array's name is refused as a value. `&v` of a scalar v, a pointer into an array (`&a[e]`,
  // `a + e`, `p + e`), and a pointer parameter that was given one, passed on, are addresses (which only a
  // pointer parameter takes).
  Arguments ParseArguments(const FunctionDef& fn);

  // The call of a function of the file ahead, `f(args)`, inlined; `result` (if any) receives its value.
  StmtPtr ParseInlinedCall(ExprPtr result);

  // Enters a call of fn for parsing its body: refuses recursion and too many calls, switches to a scope of the
  // globals and fn's parameters (not the caller's locals, which C does not show a callee), and declares them.
  // The body's statements hoist into lists of their own (the caller's runs before the whole body; until the
  // night of 2026-12-05 a loop condition or a `return` in the body hoisted its calls there: wrong verdicts).
  // Returns what LeaveCall needs to go back.
  struct CallerState {
    size_t pos;
    std::vector<std::map<std::string, Binding>> scopes;
    Hoisted* hoisted;
  };
  CallerState EnterCall(const FunctionDef& fn, const Arguments& args, Loc loc,
                        std::vector<std::optional<Var>>& params);
  void LeaveCall(CallerState& caller);

  // What a call of fn stands for. Why inline: only main is analysed, and SV-COMP tasks define small helpers
  // (assume_abort_if_not) that every verdict depends on. The body is parsed again at each call. A parameter is
  // replaced by its argument where that means the same (C passes a value once: the body writes neither the
  // parameter nor anything the argument reads, and the argument draws no input), else assigned it first.
  // A recursive function's calls, where the parse summarizes recursion, are SummaryCall's instead.
  StmtPtr Inline(const FunctionDef& fn, const Arguments& arguments, Loc loc, ExprPtr result);

  // fn's body, parsed as a call with `arguments` runs it (EnterCall), its returns assigning `result` (if any)
  // and its early ones lowered to a flag, which `first` gets the statement that clears; params: fn's
  // parameters as EnterCall declares them. Where the body can end without a return, `result` is then undefined
  // (UndefinedCall), or, for a procedure, any value.
  StmtPtr ParseCalledBody(const FunctionDef& fn, const Arguments& arguments, Loc loc, const ExprPtr& result,
                          std::vector<std::optional<Var>>& params, std::vector<StmtPtr>& first,
                          bool procedure = false);

  // Whether fn calls itself, directly or through other functions of the file (by the names its body calls).
  bool IsRecursive(const FunctionDef& fn);

  // A call of the recursive function fn as a procedure summary: `result = fn(arguments)` (a kCall), fn's body
  // parsed once into Program::procedures (BuildProcedure). Refuses a function that returns a pointer or is
  // given one or an array.
  StmtPtr SummaryCall(const FunctionDef& fn, const Arguments& arguments, Loc loc, const ExprPtr& result);

  // Parses fn's body into a Procedure whose parameters are copied into fn's own at its start, so that the
  // summary relates the arguments as given to the result; the globals its body reads or writes go to
  // Procedure::globals. Refuses a function that reads or writes an array: its calls would then be more than a
  // relation between arguments, globals and result.
  void BuildProcedure(const FunctionDef& fn, const Arguments& arguments, Loc loc);

  // Once every procedure is built: adds to each procedure's globals those of the procedures it calls (to a fixed
  // point), and starts its body by copying each global from a variable its body never writes
  // (Procedure::global_ins), so that the summary relates the globals' values at the call to those at the return.
  void CompleteProcedureGlobals();

  // The calls in fn's body of the functions in cycle, at least 1: how many calls of the cycle one call of fn
  // can make.
  Int128 CallSites(const FunctionDef& fn, const std::set<std::string>& cycle) const;

  // Whether a call of fn, inlined now, would close a cycle of calls (fn is being inlined already) deeper than
  // recursion is unrolled: kMaxRecursionDepth calls, or fewer where the calls on the cycle make more than one
  // call each, as many as keep the calls they could make together within kMaxRecursionCalls (9 levels of a
  // function that calls itself twice, fibo's).
  bool RecursesTooDeep(const FunctionDef& fn) const;

  // What a call stands for where loopfuse does not follow it, a recursive call past RecursesTooDeep, or where C
  // leaves its value undefined, a body that ends without a return: a check that no proof passes and no run
  // confirms (C leaves a division by zero undefined: the interpreter's run stops there and tells nothing, the
  // clauses give it any value, so the check may fail), then any value as the call's result (a pointer to an
  // object on the heap, which no arithmetic may make: a nondeterministic one, any object or null). A verdict
  // thus holds only where no run gets there; a run that does is `unknown`, never a bug of the program.
  static StmtPtr UndefinedCall(const ExprPtr& result);

  // Whether fn's body is `{ return E; }` (its first token is return and its first ';' ends it) with E free of
  // assignments and of calls of functions that are not such: a call of fn is then E itself, with no statement
  // to run first. Each function is looked at once (one_return_); one that calls itself, directly or not, is not
  // such (recursion is inlined as statements, to a bounded depth: RecursesTooDeep).
  bool IsOneReturn(const FunctionDef& fn);

  // A call of fn inside an expression (after its '('). Where statements may run first (WithCallsHoisted), fn
  // is inlined there, into a variable that the expression reads; a body that is one `return E;` (IsOneReturn)
  // is E with the arguments for the parameters instead (`int square(int x) { return x * x; }`), unless an
  // argument reads an input (E may read it twice, or never): where no statement runs, such a call is refused.
  ExprPtr ParseExpressionCall(const Token& t);

  // The parameter list of fn at '(', declared: an integer parameter as a variable of its own (returned in
  // order; nothing for the others), an array or pointer parameter as another name of the array that is its
  // argument (C passes the array's address: the callee reads and writes the caller's cells), a pointer
  // parameter given `&v` or `&a[e]` as a name of v or of that cell that only `*p` reads and writes (e is then
  // passed as a value, to a parameter `cell_p` of its own). Without `args` (a body parsed only to find its
  // syntax error) an array parameter gets cells of its own.
  std::vector<std::optional<Var>> DeclareParameters(const FunctionDef& fn, const Arguments* args, Loc loc);

  // A parameter of fn of struct `tag` at its declarator (`a[]` or `*a`), given the array of structs `passed`:
  // another name of that array's member arrays, as an array parameter is of its array.
  void BindStructArray(const FunctionDef& fn,
                       const std::pair<const Record*, std::map<std::string, std::string>>& passed,
                       const std::string& tag, Loc loc);

  // Parameter k of fn at its '*' (at its name, for a typedef of the pointer), a pointer to objects of `pointee`
  // on the heap: a variable of its own, given the argument (if args) as a value, which must be null or point to
  // such objects.
  Var DeclareHeapParameter(const FunctionDef& fn, const Arguments* args, size_t k, const Pointee& pointee, Loc loc);

  // Whether the extents of an array parameter's dimensions after the first, constants, are those of the array
  // `array` (none for a one-dimensional one).
  bool SameExtents(const std::vector<ExprPtr>& parameter, const std::string& array) const;

  // `return` (after the keyword) in the function being inlined: it hands its value to the call's result; one
  // before the end of the body also leaves a kReturn, which Inline lowers (the rest of the body is skipped).
  StmtPtr ParseInlinedReturn(Loc loc);

  // The value of `return` in a function that returns a pointer: a pointer into an array, the same one at every
  // return of the call (InlineFrame::result_array); the index of its cell.
  ExprPtr ParsePointerResult();

  // A call ahead of a function of the file that returns a pointer, for the pointer `name` to cells of `type`:
  // the statements of the call, and what it returns, a pointer into an array.
  std::pair<StmtPtr, PointerValue> ParsePointerCall(const std::string& name, IntType type);

  // Skips the rest of a call's argument list after its '('.
  void SkipBalancedRest();

  // a op b for an arithmetic operator, with C's conversions made explicit.
  ExprPtr Arith(const std::string& op, ExprPtr a, ExprPtr b, Loc loc);

  // a << k and a >> k: by a constant k, the arithmetic they are (ShiftByConstant); by any other k, the choice
  // among those arithmetic forms that k's value makes, `k == 0 ? a : k == 1 ? ... : a / 0`: a shift by k < 0 or
  // k >= the width is undefined in C, as a division by zero is (the interpreter stops such a run, the encoding
  // gives it any value). The chain repeats a and k once per bit, so neither may read an input (it would read
  // one per copy) and their size is bounded.
  ExprPtr Shift(const Token& op, const ExprPtr& a, const ExprPtr& k);

  // a << k and a >> k for a constant k from 0 to the width - 1, as the arithmetic they are (the integers carry
  // no bits): a times 2^k, wrapping as the product does; a divided by 2^k, rounded down as gcc's arithmetic shift
  // of a negative value is (division rounds towards zero, hence the second branch). The type is a's, promoted.
  ExprPtr ShiftByConstant(const Token& op, const ExprPtr& a, int k);

  // The nodes of e's tree, counted to just past `limit` at most: a tree whose subtrees are shared (the parser
  // substitutes arguments by pointer) may be exponentially larger than the nodes it holds in memory.
  static size_t NodeCount(const ExprPtr& e, size_t limit);

  // Fails unless the operands of `what` may be repeated in the arithmetic that stands for it: none reads an
  // input (each copy would read one more) and together they are small.
  void RequireCopyable(const Token& op, const std::string& what, std::initializer_list<ExprPtr> operands);

  // a & c, a | c and a ^ c for a constant c (either operand), as the arithmetic they are, since the integers
  // carry no bits: the bits of x from lo to hi are res(x, 2^(hi+1)) - res(x, 2^lo), where res is the residue
  // that two's complement makes non-negative ((x % m + m) % m for a signed x), so x & c sums that over the runs
  // of ones in c (a mask of the low bits, `i & 1`, `x & 0xff`, is one residue and reads x once); a negative c
  // is x - (x & ~c); x | c = (x - (x & c)) + c and x ^ c = (x - (x & c)) + (c - (x & c)), whose every partial
  // sum stays within the type. Where x is copied it may not read an input (it would read one per copy), nor
  // be large; for a signed x the constant keeps within -2^(bits-2) to 2^(bits-2) - 1, so that x % m + m cannot
  // overflow. Between two variables the operator stays one node, which the Horn encoding takes apart into bits
  // (horn.cc, Bitwise).
  ExprPtr Bitwise(const Token& op, const ExprPtr& a, const ExprPtr& b);

  // Comparison a op b: both operands converted to their common type; the result is int.
  ExprPtr Compare(const std::string& op, ExprPtr a, ExprPtr b);

  // An expression with C's comma operator (`a, b`: a runs for its assignments and calls, its value dropped,
  // before b, whose value the expression is), where the grammar has one: in parentheses and the conditions of
  // if, while, do, for and switch, and after return. (Joining expression statements and a for's clauses, it
  // is ParseExpressionList's.) Until the night of 2026-12-05 such a comma was unsupported.
  ExprPtr ParseCommaExpr();

  ExprPtr ParseExpr();

  ExprPtr ParseBinary(int min_prec);

  // `a && b` or `a || b` (op) after the operator, b of precedence above prec; `left` marks where a's hoisted
  // statements begin. Where b needs statements to run first, or reads what a's assignments store, a's truth goes
  // into a fresh int before them, and only where C evaluates b (a true for &&, false for ||) do they run and
  // b's truth replace it: the expression is that int.
  ExprPtr ShortCircuit(const std::string& op, const HoistedMark& left, const ExprPtr& a, int prec);

  // How far the hoisted statements and stores reach now (nothing where none may be hoisted).
  HoistedMark MarkHoisted() const;

  // parse() with what it hoists gathered in `hoisted` where statements may run first, else parse() alone.
  template <typename Parse>
  ExprPtr WithCallsHoistedIf(Hoisted& hoisted, Parse parse) {
    return hoisted_ ? WithCallsHoisted(hoisted, parse) : parse();
  }

  // Whether an operand e that C evaluates after the part since `left` (the right of && or ||, a branch of ?:),
  // needs statements of its own: it hoisted some (`before`), or it reads a variable that the part stored.
  bool NeedsStatements(const HoistedMark& left, const Hoisted& before, const ExprPtr& e) const;

  // Records that the statements just hoisted run the operands `later` after the part since `left`, as C
  // sequences them: the stores of either may be read or written by the other, not by the rest.
  void SequenceAfter(const HoistedMark& left, const std::vector<Hoisted>& later);

  // sizeof(type) or sizeof(expr) in bytes, as unsigned long.
  ExprPtr ParseSizeof(Loc loc);

  // A unary expression; a postfix ++ or -- on it too unless not postfix_assignments (the target of an
  // assignment statement, whose ++ or -- is its own).
  ExprPtr ParseUnary(bool postfix_assignments = true);

  // A cast to a pointer type at its first '*' (after the type `spec`): of a constant 0, null; of a pointer to
  // objects on the heap, that pointer, where the type is theirs or void. Any other is refused.
  ExprPtr ParsePointerCast(const std::optional<ParsedType>& spec);

  // `*p` at its '*', p at `name`: the variable that a pointer given `&v` points to, the cell that a pointer into
  // an array points to (`*p++` that cell, then p moved to the next), or the first cell of a one-dimensional
  // array (`*a` is `a[0]`); nothing for any other name. `*a++` of an array, `*v++` of a pointer to a variable
  // and `*p[1]` are refused.
  ExprPtr Dereference(const Token& name);

  // The variable on the heap (a struct's, DeclareStructObject, or an integer's, DeclareIntegerObject) named at
  // token k as a whole, or null.
  const Binding* ObjectAt(int k) const;

  // Whether the tokens ahead are `(*e).`: a member of what e points to.
  bool AtDereferencedMember() const;

  // The offset of the token after the group in parentheses or brackets that opens at token k (of the end of
  // the tokens where it never closes).
  int AfterGroup(int k) const;

  ExprPtr ParsePostfix(bool postfix_assignments);

  // `s.m` or `a[i].m` (through nested members, `s.inner.x`) at a struct variable's name: the member's variable,
  // or its array's cell i.
  ExprPtr ParseMemberAccess(const Record& record);

  ExprPtr ParsePrimary();

  // The type a __VERIFIER_nondet_<suffix> function returns: SV-COMP's names, and the spelled-out unsigned ones
  // that tasks declare for themselves (nla-digbench's `__VERIFIER_nondet_unsigned_int`).
  IntType NondetType(const Token& t);

  ExprPtr Number(const Token& t);

  // Whether an operand between the tokens `before` and `after` is taken by C as a truth value only: an operand
  // of `!`, `&&` or `||` (`!"never"`, `x && "why"`, `"why" && x`), not one of a tighter operator (`x == "a" && y`).
  static bool IsTruthOperand(const Token& before, const Token& after);

  // A character constant: one character or escape sequence (simple, octal, hexadecimal). A plain one is an
  // int holding the char that gcc makes of it, signed ('\xff' is -1); L'x' a wchar_t (int), u'x' a char16_t
  // and U'x' a char32_t holding the code itself. A constant of several characters (implementation-defined), a
  // hexadecimal escape of more than two digits, and a prefixed one of a raw byte outside ASCII (a UTF-8
  // sequence) or with u8 are unsupported.
  ExprPtr CharLiteral(const Token& t);

  // The code (0 to 255) of the character or escape sequence of literal t that starts at body[at]; at moves past
  // it (a hexadecimal escape takes every hexadecimal digit after it, as C's does). Escapes other than C's, and
  // codes above 255, are unsupported.
  Int128 CharacterCode(const Token& t, const std::string& body, size_t& at);

  // The string literal ahead, and any after it (C joins "ab" "c"), as the cells of a char array of type `type`
  // it initialises: its characters, then the 0 that ends it. Prefixed literals (L"..", u8"..") are unsupported.
  std::vector<ExprPtr> ParseStringCells(IntType type);

  std::string file_;
  std::vector<Token> toks_;
  // The second reading of a program that the first refused (Parse): every pointer to an integer points to
  // objects on the heap, and every integer variable whose address the file takes is one, so that such pointers
  // are moved, compared and stored as pointers to structs are.
  const bool integers_on_heap_;
  // Recursive functions become procedures that their calls summarize (SummaryCall) instead of being inlined to
  // a bounded depth (RecursesTooDeep).
  const bool summarize_recursion_;
  const Deadline deadline_;
  Hoisted* hoisted_ = nullptr;  // what WithCallsHoisted lets run first, if anything may
  int long_bits_;      // of long and pointers: 64 (LP64) or 32 (ILP32)
  IntType size_type_;  // size_t, the type of sizeof
  size_t pos_ = 0;
  int depth_ = 0;  // levels of nesting being parsed (DepthGuard)
  Program prog_;
  std::vector<std::map<std::string, Binding>> scopes_;
  // The multi-dimensional arrays, by variable: the extents of their dimensions after the first, which index
  // their cells (ParseArrayDeclarator).
  std::map<std::string, std::vector<ExprPtr>> inner_extents_;
  // The cell type of each pointer declared without a value (`int *p;`), by its index variable, for the
  // assignment that first points it into an array (PointCursor).
  std::map<std::string, IntType> pointee_types_;
  // The arrays of pointers declared without a value (a global `int *h;`, a local one): null until something
  // is allocated for them, so that comparing them with null is refused (RequireAllocated).
  std::set<std::string> maybe_null_;
  std::map<std::string, Record> records_;  // the structs defined, by tag
  // The names that follow a '&' as a whole (`&s`, not `&s.m` or `&a[i]`): a struct variable of such a name is an
  // object on the heap (DeclareStructObject).
  std::set<std::string> addressed_;
  // The variables and arrays that hold pointers to objects on the heap (heap slots), by name: what they point to.
  std::map<std::string, Pointee> heap_slots_;
  // The arrays of the members of objects on the heap (HeapField), by "tag.path" (an integer object's: its type).
  std::map<std::string, std::string> heap_fields_;
  std::map<std::string, IntType> enum_types_;  // the enums defined, by tag: their types
  std::map<std::string, ParsedType> typedefs_;
  std::set<std::string> opaque_typedefs_;
  std::vector<StmtPtr> globals_init_;
  // The static variables declared inside functions, by the token index of their declarator, and what sets
  // them before main runs (ParseStaticDeclarators).
  std::map<size_t, std::string> static_locals_;
  std::vector<StmtPtr> static_inits_;
  std::optional<size_t> main_pos_;  // the token index of main's body
  std::vector<JumpMarks> jump_marks_;  // of main's body and of each body being inlined, innermost last
  size_t main_end_ = 0;             // the token index of its closing '}'
  std::map<std::string, FunctionDef> functions_;  // the functions of the file but main and the known helpers
  std::map<std::string, bool> one_return_;        // IsOneReturn of each function looked at
  std::vector<InlineFrame> inlining_;             // the calls being inlined, innermost last
  std::map<std::string, bool> recursive_;         // IsRecursive of each function looked at
  std::set<std::string> summarized_;              // the functions whose procedures are built or being built
  // Every summarized call: the function, its number of arguments and where it is, checked against the
  // procedure's parameters once all are parsed (a call inside the body being parsed comes before them).
  struct SummaryCallSite {
    std::string fn;
    size_t args = 0;
    Loc loc;
  };
  std::vector<SummaryCallSite> summary_calls_;
  std::string last_pointer_result_;  // the array that the pointer result of the last inlined call points into
  int inlined_calls_ = 0;
};

}  // namespace fusion::parsing
