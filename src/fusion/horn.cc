#include "fusion/horn.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "common/stopwatch.h"
#include "fusion/cpu_clock.h"
#include "fusion/errors.h"
#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// Bound on the clauses of one program (its loop-free paths, or its merged blocks' edges), so that a huge
// program fails fast.
constexpr size_t kMaxClauses = 20000;

// Thrown when the loop-free paths between cut points exceed the encoder's bound.
struct TooManyPaths {};

// How the clauses cover the loop-free code between loop heads (EncodeHorn).
enum class Blocks {
  kPaths,   // one clause per path
  kMerged,  // one clause per edge into a cut point and per way to an error, all paths there in one formula
};

// A control-flow node: a simple statement, a two-way branch, or an end (exit, error).
struct Node {
  enum Kind { kStmt, kBranch, kExit, kError } kind = kExit;
  StmtPtr stmt;     // kStmt: kAssign, kHavoc, kAssume, kAssert
  ExprPtr cond;     // kBranch
  int next = -1;    // kStmt successor, kBranch true successor
  int alt = -1;     // kBranch false successor
  bool cut = false; // a cut point (a loop head): it gets a predicate
};

// Turns the structured program into a control-flow graph whose loop heads are cut points.
class CfgBuilder {
 public:
  std::vector<Node> nodes;
  int exit_node = Add(Node{Node::kExit, nullptr, nullptr});
  int error_node = Add(Node{Node::kError, nullptr, nullptr});

  int Add(Node n) {
    nodes.push_back(std::move(n));
    return static_cast<int>(nodes.size()) - 1;
  }

  // The entry node of s, which continues at succ; break and continue jump to brk and cont.
  int Build(const StmtPtr& s, int succ, int brk, int cont) {
    switch (s->kind) {
      case StmtKind::kBlock: {
        int entry = succ;
        for (auto it = s->body.rbegin(); it != s->body.rend(); ++it) entry = Build(*it, entry, brk, cont);
        return entry;
      }
      case StmtKind::kAssign:
      case StmtKind::kHavoc:
      case StmtKind::kAssume:
      case StmtKind::kAssert:
        return Add(Node{Node::kStmt, s, nullptr, succ});
      case StmtKind::kError:
        return error_node;
      case StmtKind::kIf: {
        const int t = Build(s->body[0], succ, brk, cont);
        const int f = Build(s->body[1], succ, brk, cont);
        return Add(Node{Node::kBranch, nullptr, s->cond, t, f});
      }
      case StmtKind::kLoop:
        return BuildLoop(s, succ);
      case StmtKind::kBreak:
        return brk;
      case StmtKind::kContinue:
        return cont;
      case StmtKind::kReturn:
        return exit_node;
    }
    return succ;
  }

 private:
  static bool IsFalse(const ExprPtr& e) { return e->kind == ExprKind::kConst && e->value == 0; }

  int BuildLoop(const StmtPtr& s, int succ) {
    if (IsFalse(s->cond)) {  // do { } while (0) runs its body once; while (0) never does
      if (!s->do_while) return succ;
      return Build(s->body[0], succ, succ, succ);
    }
    const int head = Add(Node{Node::kBranch, nullptr, s->cond, -1, succ, true});
    const int step = s->step ? Build(s->step, head, succ, head) : head;
    const int body = Build(s->body[0], step, succ, step);
    nodes[head].next = body;
    return s->do_while ? body : head;
  }
};

// Names of the variables an expression reads (arrays included).
void ReadsOf(const ExprPtr& e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::kVar || e->kind == ExprKind::kIndex) out.insert(e->name);
  for (const auto& a : e->args) ReadsOf(a, out);
}

// Live variables at every node (backward data flow to a fixed point); an exit in exit_reads reads those.
// check_limits is called at every node (it throws past the encoding's limits: on a large program this takes
// seconds). The nodes in the order CfgBuilder adds them, each after its successors but for a loop's back edge:
// one pass settles all but the loops, one more each level of loop nesting. (In the other order every pass
// settled one more node of each path: the 2 000-node paths of a recursion inlined 1 024 times took minutes.)
std::vector<std::set<std::string>> Liveness(const std::vector<Node>& nodes,
                                            const std::map<int, std::set<std::string>>& exit_reads,
                                            const std::function<void()>& check_limits) {
  std::vector<std::set<std::string>> live(nodes.size());
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      check_limits();
      const Node& n = nodes[i];
      std::set<std::string> in;
      if (const auto reads = exit_reads.find(static_cast<int>(i)); reads != exit_reads.end()) in = reads->second;
      if (n.kind == Node::kBranch) {
        in = live[n.next];
        in.insert(live[n.alt].begin(), live[n.alt].end());
        ReadsOf(n.cond, in);
      } else if (n.kind == Node::kStmt) {
        in = live[n.next];
        const Stmt& s = *n.stmt;
        if (s.kind == StmtKind::kHavoc) {
          in.erase(s.name);
        } else if (s.kind == StmtKind::kAssign) {
          if (s.lhs->kind == ExprKind::kVar) {
            in.erase(s.lhs->name);
          } else {
            ReadsOf(s.lhs, in);  // an array store keeps the other cells, and reads its index
          }
          ReadsOf(s.rhs, in);
        } else {
          ReadsOf(s.cond, in);
        }
      }
      if (in != live[i]) {
        live[i] = std::move(in);
        changed = true;
      }
    }
  }
  return live;
}

// Numerals this close to a large constant K are encoded as its parameter plus the difference (N - 1
// as K - 1), so that a bound and the last index stay related.
constexpr Int128 kNear = 2;

// True when k is a type's extreme (or next to one): those keep their numerals, as the type ranges do.
bool NearTypeExtreme(Int128 k) {
  for (const IntType t : {IntType{8, true}, IntType{8, false}, IntType{16, true}, IntType{16, false}, kInt, kUnsigned,
                          kLongLong, kUnsignedLong}) {
    for (const Int128 e : {MinOf(t), MaxOf(t), MaxOf(t) + 1}) {
      if (k >= e - 2 * kNear && k <= e + 2 * kNear) return true;
      if (-k >= e - 2 * kNear && -k <= e + 2 * kNear) return true;
    }
  }
  return false;
}

void CollectLargeConstants(const ExprPtr& e, std::set<Int128>& out) {
  if (!e) return;
  if (e->kind == ExprKind::kConst) {
    const Int128 k = e->value < 0 ? -e->value : e->value;
    if (k >= kLargeConstant && !NearTypeExtreme(k)) {
      // One parameter for constants within kNear of each other (N and N + 1 are one bound).
      bool near = false;
      for (Int128 c : out) near = near || (k >= c - kNear && k <= c + kNear);
      if (!near) out.insert(k);
    }
  }
  for (const auto& a : e->args) CollectLargeConstants(a, out);
}

// The large constants in the loop conditions of a statement (see EncodeHorn): the bounds Spacer would
// count up to. (Others, such as the range checks of seq-3, stay numerals: there a parameter only hides
// facts the proof uses.)
void CollectLargeConstants(const StmtPtr& s, std::set<Int128>& out) {
  if (!s) return;
  if (s->kind == StmtKind::kLoop) CollectLargeConstants(s->cond, out);
  for (const auto& b : s->body) CollectLargeConstants(b, out);
}

// The magnitudes d (2 <= d < kLargeConstant) of the constant divisors of the divisions and remainders in an
// expression.
void CollectDivisors(const ExprPtr& e, std::set<Int128>& out) {
  if (!e) return;
  if (e->kind == ExprKind::kBinary && (e->op == "/" || e->op == "%")) {
    if (const std::optional<Int128> d = FoldConstant(e->args[1])) {
      const Int128 m = *d < 0 ? -*d : *d;
      if (m >= 2 && m < kLargeConstant) out.insert(m);
    }
  }
  for (const auto& a : e->args) CollectDivisors(a, out);
}

// Symbolic values of the variables along one path.
using State = std::map<std::string, z3::expr>;

// Turns the loop-free code from each cut point into clauses: a path at a time, or all merged (Blocks).
class Encoder {
 public:
  // Throws TooManyPaths past max_clauses clauses, EncodeTimeout past time_limit_s, EncodeCpuLimit once the
  // thread's CPU clock passes cpu_deadline_s.
  Encoder(const Program& prog, z3::context& ctx, double time_limit_s, double cpu_deadline_s, bool symbolic_uint_max,
          bool symbolic_constants, Blocks blocks, size_t max_clauses)
      : prog_(prog),
        ctx_(ctx),
        time_limit_s_(time_limit_s),
        cpu_deadline_s_(cpu_deadline_s),
        symbolic_(symbolic_uint_max),
        blocks_(blocks),
        max_clauses_(max_clauses) {
    if (symbolic_constants) {
      std::set<Int128> seen;
      CollectLargeConstants(prog.body, seen);
      for (Int128 k : seen) constants_.push_back({SymbolicConstantName(k), k});
      if (!constants_.empty()) ForEachExpr(prog.body, [&](const ExprPtr& e) { CollectDivisors(e, divisors_); });
    }
  }

  HornSystem Run() {
    CfgBuilder cfg;
    const int entry = cfg.Build(prog_.body, cfg.exit_node, cfg.exit_node, cfg.exit_node);
    // Each procedure's body ends at an exit of its own, where its summary reads the parameters and the result.
    std::vector<int> procedure_entries;
    std::map<int, std::set<std::string>> exit_reads;
    for (size_t k = 0; k < prog_.procedures.size(); ++k) {
      const Procedure& proc = prog_.procedures[k];
      const int exit = cfg.Add(Node{Node::kExit, nullptr, nullptr});
      procedure_entries.push_back(cfg.Build(proc.body, exit, exit, exit));
      procedure_exits_[exit] = SummaryPred(proc);
      exit_reads[exit] = {proc.params.begin(), proc.params.end()};
      exit_reads[exit].insert(proc.global_ins.begin(), proc.global_ins.end());
      exit_reads[exit].insert(proc.result);
      exit_reads[exit].insert(proc.globals.begin(), proc.globals.end());
    }
    nodes_ = cfg.nodes;
    error_node_ = cfg.error_node;
    live_ = Liveness(nodes_, exit_reads, [this] { CheckLimits(); });
    const std::set<std::string> dispatch = DispatchVars();
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i].cut) continue;
      const auto v = std::find_if(live_[i].begin(), live_[i].end(), [&](const auto& x) { return dispatch.count(x); });
      if (v != live_[i].end()) {
        split_var_[static_cast<int>(i)] = *v;  // its predicates come as paths reach it
      } else {
        PredAt(static_cast<int>(i), std::nullopt);
      }
    }
    // From the program entry, then from every cut point (the list grows as paths reach split heads).
    StartFrom(entry, -1);
    for (size_t k = 0; k < procedure_entries.size(); ++k) {
      const Procedure& proc = prog_.procedures[k];
      const auto context = context_preds_.find(proc.name);
      if (context != context_preds_.end()) {
        StartFrom(procedure_entries[k], context->second);
      } else {
        StartFrom(procedure_entries[k], -1, &proc);
      }
    }
    for (size_t pred = 0; pred < sys_.preds.size(); ++pred) {
      if (pred_nodes_[pred] >= 0) StartFrom(pred_nodes_[pred], static_cast<int>(pred));
    }
    return std::move(sys_);
  }

 private:
  bool IsUintMax(const std::string& var) const { return symbolic_ && var == kSymbolicUintMax; }
  // True for the parameters of a symbolic encoding (UINT_MAX and the large constants).
  bool IsParameter(const std::string& var) const {
    if (IsUintMax(var)) return true;
    return std::any_of(constants_.begin(), constants_.end(), [&](const auto& c) { return c.first == var; });
  }

  z3::sort SortOf(const std::string& var) const {
    if (IsParameter(var)) return ctx_.int_sort();
    return prog_.VarNamed(var).is_array ? ctx_.array_sort(ctx_.int_sort(), ctx_.int_sort()) : ctx_.int_sort();
  }

  z3::expr Fresh(const std::string& base, z3::sort s) {
    z3::expr c = ctx_.constant((base + "!" + std::to_string(counter_++)).c_str(), s);
    vars_.push_back(c);
    return c;
  }

  // The variables of prog.dispatch_vars that the program assigns nothing but constants: each takes
  // finitely many values, so a predicate per value is a finite system.
  std::set<std::string> DispatchVars() const {
    std::set<std::string> out = prog_.dispatch_vars;
    for (const Node& n : nodes_) {
      if (n.kind != Node::kStmt) continue;
      const Stmt& s = *n.stmt;
      if (s.kind == StmtKind::kHavoc) out.erase(s.name);
      if (s.kind == StmtKind::kAssign && s.lhs->kind == ExprKind::kVar && s.rhs->kind != ExprKind::kConst) {
        out.erase(s.lhs->name);
      }
    }
    return out;
  }

  // The predicate of cut point `node`, made on first use: at one value of the head's dispatch variable (then
  // over the other live variables), or at any (over all of them).
  int PredAt(int node, std::optional<Int128> value) {
    const auto key = std::make_pair(node, value);
    if (const auto it = pred_of_.find(key); it != pred_of_.end()) return it->second;
    const int pred = static_cast<int>(sys_.preds.size());
    pred_of_[key] = pred;
    pred_nodes_.push_back(node);
    std::vector<std::string> vars = ParameterNames();
    for (const auto& v : live_[node]) {
      if (!value || v != split_var_.at(node)) vars.push_back(v);
    }
    z3::sort_vector domain(ctx_);
    for (const auto& v : vars) domain.push_back(SortOf(v));
    std::string name = "L";
    name.append(std::to_string(pred));
    sys_.preds.push_back(ctx_.function(name.c_str(), domain, ctx_.bool_sort()));
    sys_.pred_vars.push_back(std::move(vars));
    if (value) sys_.dispatch_values[pred] = {split_var_.at(node), *value};
    return pred;
  }

  // The names that every predicate starts with: the parameters of a symbolic encoding.
  std::vector<std::string> ParameterNames() const {
    std::vector<std::string> names;
    if (symbolic_) names.push_back(kSymbolicUintMax);
    for (const auto& c : constants_) names.push_back(c.first);
    return names;
  }

  // The summary predicate of a procedure, over the parameters of the encoding, its own parameters, its globals at
  // the call, its result and its globals at the return; for a procedure that can reach an error, its context
  // predicate too, over the values at the call. Returns the summary predicate.
  int SummaryPred(const Procedure& proc) {
    std::vector<std::string> vars = ParameterNames();
    vars.insert(vars.end(), proc.params.begin(), proc.params.end());
    vars.insert(vars.end(), proc.global_ins.begin(), proc.global_ins.end());
    if (EffectsOf(proc.body).errors) context_preds_[proc.name] = AddPred("C_" + proc.name, vars);
    vars.push_back(proc.result);
    vars.insert(vars.end(), proc.globals.begin(), proc.globals.end());
    return summary_preds_[proc.name] = AddPred("S_" + proc.name, std::move(vars));
  }

  // A predicate of no cut point, over vars.
  int AddPred(const std::string& name, std::vector<std::string> vars) {
    z3::sort_vector domain(ctx_);
    for (const auto& v : vars) domain.push_back(SortOf(v));
    sys_.preds.push_back(ctx_.function(name.c_str(), domain, ctx_.bool_sort()));
    sys_.pred_vars.push_back(std::move(vars));
    pred_nodes_.push_back(-1);
    return static_cast<int>(sys_.preds.size()) - 1;
  }

  // The value of a call of a procedure in state st: a fresh result, and fresh values of the globals it writes in
  // st, related to the arguments and the globals' values before by the summary, which the clause's body gets
  // (path_calls_). The arguments are converted to the parameters' types, as C does.
  z3::expr CallSummary(const Expr& call, State& st, std::vector<z3::expr>& path) {
    const Procedure& proc = prog_.ProcedureNamed(call.name);
    SummaryAtom atom{summary_preds_.at(call.name), {}};
    for (const std::string& name : ParameterNames()) atom.args.push_back(st.at(name));
    for (size_t i = 0; i < call.args.size(); ++i) {
      atom.args.push_back(Int(MakeCast(prog_.VarNamed(proc.params[i]).type, call.args[i]), st, path));
    }
    for (const std::string& g : proc.globals) atom.args.push_back(st.at(g));
    // Where the procedure can reach an error, the path up to the call is a context it is called in.
    if (const auto context = context_preds_.find(call.name); context != context_preds_.end()) {
      Emit(path, context->second, atom.args);
    }
    const z3::expr result = Fresh(proc.result, ctx_.int_sort());
    path.push_back(InRange(result, prog_.VarNamed(proc.result).type));
    atom.args.push_back(result);
    for (const std::string& g : proc.globals) {
      st.at(g) = Fresh(g, ctx_.int_sort());
      path.push_back(InRange(st.at(g), prog_.VarNamed(g).type));
      atom.args.push_back(st.at(g));
    }
    path_calls_.push_back(std::move(atom));
    return result;
  }

  // The predicate that a path in state st reaches at cut point `node`.
  int PredReached(int node, const State& st) {
    const auto split = split_var_.find(node);
    if (split == split_var_.end()) return PredAt(node, std::nullopt);
    const z3::expr v = st.at(split->second).simplify();
    int64_t k = 0;
    if (v.is_numeral_i64(k)) return PredAt(node, Int128(k));
    return PredAt(node, std::nullopt);
  }

  // Starts the paths at node with every variable fresh; pred (if any) holds of the live ones; at the entry of
  // procedure proc, its parameters and the globals it reads or writes hold values of their types, as every call
  // gives them.
  void StartFrom(int node, int pred, const Procedure* proc = nullptr) {
    vars_.clear();
    path_calls_.clear();
    path_inputs_.clear();
    path_sites_.clear();
    path_arrays_.clear();
    input_guards_.clear();
    array_guards_.clear();
    divisions_.clear();
    State st;
    for (const Var& v : prog_.vars) st.emplace(v.name, Fresh(v.name, SortOf(v.name)));
    // The parameter M of a symbolic encoding: fresh at the entry, carried unchanged by every predicate.
    if (symbolic_) {
      st.emplace(kSymbolicUintMax, Fresh(kSymbolicUintMax, ctx_.int_sort()));
      uint_max_ = st.at(kSymbolicUintMax);
    }
    constant_params_.clear();
    std::vector<z3::expr> path;
    for (const auto& [name, value] : constants_) {
      st.emplace(name, Fresh(name, ctx_.int_sort()));
      constant_params_.push_back(st.at(name));
      // Positive, as the constant is (its negative occurrences are -(K + d)): a loop up to K runs, as
      // the program's does. True of the constant, hence of every clause at K := the constant.
      path.push_back(constant_params_.back() >= 1);
      // Its residues modulo the program's divisors, true of the constant too: K / 2 is K's half only for
      // an even K (partial_mod_count_1's bound j < N / 2 holds only then).
      for (Int128 d : divisors_) {
        path.push_back(z3::mod(constant_params_.back(), ctx_.int_val(static_cast<int64_t>(d))) ==
                       ctx_.int_val(static_cast<int64_t>(value % d)));
      }
    }
    // At a predicate of one dispatch value the variable is that value, so the paths take its block only.
    if (const auto split = sys_.dispatch_values.find(pred); split != sys_.dispatch_values.end()) {
      st.at(split->second.first) = Num(split->second.second);
    }
    std::vector<z3::expr> args;
    if (pred >= 0) {
      for (const auto& v : sys_.pred_vars[pred]) args.push_back(st.at(v));
    }
    body_pred_ = pred;
    body_args_ = args;
    // Every stored scalar lies in its type's range (unsigned and narrow values are wrapped on assignment;
    // signed ones stay in range in programs without signed overflow, whose behaviour C leaves undefined).
    if (pred >= 0) {
      for (const auto& v : sys_.pred_vars[pred]) {
        if (!IsParameter(v) && !prog_.VarNamed(v).is_array) path.push_back(InRange(st.at(v), prog_.VarNamed(v).type));
      }
    }
    if (proc) {
      for (const std::string& v : proc->params) path.push_back(InRange(st.at(v), prog_.VarNamed(v).type));
      // The globals' values at the call too, as every caller's state holds them: without their ranges the summary
      // is also about values no call passes (an unsigned x below 0 that a base case `x <= 0` returns as it is).
      for (size_t k = 0; k < proc->globals.size(); ++k) {
        path.push_back(InRange(st.at(proc->global_ins[k]), prog_.VarNamed(proc->globals[k]).type));
      }
    }
    // A cut point starts by taking its first step, not by ending the path at itself.
    if (blocks_ == Blocks::kMerged) {
      Merge(node, std::move(st), std::move(path));
    } else {
      Walk(node, st, path, true);
    }
  }

  // Throws past the time limit or the CPU limit (the constructor's).
  void CheckLimits() const {
    if (clock_.Seconds() > time_limit_s_) throw EncodeTimeout();
    if (cpu_.Seconds() > cpu_deadline_s_) throw EncodeCpuLimit();
  }

  // A clause over the facts of path, from the predicate the walk started at to head_pred (-1: false, an error).
  void Emit(const std::vector<z3::expr>& path, int head_pred, std::vector<z3::expr> head_args) {
    CheckLimits();
    if (sys_.clauses.size() >= max_clauses_) throw TooManyPaths{};
    z3::expr_vector conj(ctx_);
    for (const auto& p : path) conj.push_back(p);
    HornClause c{body_pred_,   body_args_,   z3::mk_and(conj), head_pred,     std::move(head_args), vars_,
                 path_inputs_, path_sites_,  path_arrays_,     input_guards_, array_guards_,        path_calls_};
    sys_.clauses.push_back(std::move(c));
  }

  // Blocks::kPaths: every path from id to the next cut points, exits and errors, a clause each.
  void Walk(int id, State st, std::vector<z3::expr> path, bool first) {
    while (true) {
      const Node& n = nodes_[id];
      if (n.cut && !first) {
        const int pred = PredReached(id, st);
        std::vector<z3::expr> args;
        for (const auto& v : sys_.pred_vars[pred]) args.push_back(st.at(v));
        Emit(path, pred, std::move(args));
        return;
      }
      first = false;
      if (const auto exit = procedure_exits_.find(id); exit != procedure_exits_.end()) {
        const int pred = exit->second;
        std::vector<z3::expr> args;
        for (const auto& v : sys_.pred_vars[pred]) args.push_back(st.at(v));
        Emit(path, pred, std::move(args));
        return;
      }
      if (n.kind == Node::kExit) return;
      if (n.kind == Node::kError) {
        Emit(path, -1, {});
        return;
      }
      if (n.kind == Node::kBranch) {
        const z3::expr c = Bool(n.cond, st, path).simplify();
        if (c.is_true()) {
          id = n.next;
          continue;
        }
        if (!c.is_false()) {
          auto p = path;
          p.push_back(c);
          const std::vector<z3::expr> inputs = path_inputs_, arrays = path_arrays_;
          const std::vector<InputSite> sites = path_sites_;
          const std::vector<SummaryAtom> calls = path_calls_;
          const std::map<std::tuple<unsigned, unsigned, bool>, Division> divisions = divisions_;
          Walk(n.next, st, p, false);
          path_inputs_ = inputs;
          path_sites_ = sites;
          path_calls_ = calls;
          path_arrays_ = arrays;
          divisions_ = divisions;
          path.push_back(!c);
        }
        id = n.alt;
        continue;
      }
      const Stmt& s = *n.stmt;
      if (s.kind == StmtKind::kAssume) {
        path.push_back(Bool(s.cond, st, path));
      } else if (s.kind == StmtKind::kAssert) {
        const z3::expr c = Bool(s.cond, st, path);
        auto p = path;
        p.push_back(!c);
        Emit(p, -1, {});
        path.push_back(c);
      } else {
        Execute(s, st, path);
      }
      id = n.next;
    }
  }

  // Runs an assignment or a havoc on st; the facts it needs go on the path.
  void Execute(const Stmt& s, State& st, std::vector<z3::expr>& path) {
    if (s.kind == StmtKind::kAssign) {
      const z3::expr v = Int(s.rhs, st, path);
      if (s.lhs->kind == ExprKind::kVar) {
        st.at(s.lhs->name) = v;
      } else {
        const z3::expr i = Int(s.lhs->args[0], st, path);
        st.at(s.lhs->name) = z3::store(st.at(s.lhs->name), i, v);
      }
    } else if (s.kind == StmtKind::kHavoc) {
      const Var& v = prog_.VarNamed(s.name);
      st.at(s.name) = Fresh(s.name, SortOf(s.name));
      if (v.is_array) {
        path_arrays_.push_back(st.at(s.name));
      } else {
        path.push_back(InRange(st.at(s.name), v.type));
        path_inputs_.push_back(st.at(s.name));
        path_sites_.push_back(InputSite{{}, s.name});
      }
    }
  }

  // A way into a node of a merged block: taken where guard holds, with the values after the node it leaves.
  struct Edge {
    z3::expr guard;
    State st;
  };

  // The nodes from start up to the next cut points, exits and errors, each after every node with an edge to it.
  // (Every cycle passes a loop head, a cut point, so the region is acyclic.)
  std::vector<int> RegionOrder(int start) const {
    const auto inner = [&](int id) {
      return id >= 0 && !nodes_[id].cut && (nodes_[id].kind == Node::kStmt || nodes_[id].kind == Node::kBranch);
    };
    std::vector<int> order;
    std::vector<bool> seen(nodes_.size(), false);
    std::vector<std::pair<int, int>> stack{{start, 0}};  // node, successors looked at
    seen[start] = true;
    while (!stack.empty()) {
      const int id = stack.back().first;
      const int k = stack.back().second++;
      const Node& n = nodes_[id];
      if (k < 2) {
        const int succ = k == 0 ? n.next : n.kind == Node::kBranch ? n.alt : -1;
        if (inner(succ) && !seen[succ]) {
          seen[succ] = true;
          stack.push_back({succ, 0});
        }
        continue;
      }
      order.push_back(id);
      stack.pop_back();
    }
    std::reverse(order.begin(), order.end());
    return order;
  }

  // Blocks::kMerged: the paths from start to the next cut points as one formula (a large-block encoding).
  // Each node has a guard, true where the run passes it: an edge's guard is its source's and the branch's
  // condition, a join's a fresh Boolean equal to the disjunction of its edges'. A variable live at a join whose
  // edges bring different values gets a fresh value equal to the value of the edge taken. The facts a node
  // needs (ranges of inputs, wrap-arounds, divisions) hold where its guard holds, so a path not taken
  // constrains nothing. One clause for each edge into a cut point and each way to an error, over the facts of
  // every node before it: SV-COMP's locks tasks (2^(2k) paths for k locks) need no invariant between their
  // ifs then.
  void Merge(int start, State st, std::vector<z3::expr> facts) {
    const Node& first = nodes_[start];
    if (first.kind == Node::kExit) return;
    if (first.kind == Node::kError) return Emit(facts, -1, {});
    const std::vector<int> order = RegionOrder(start);
    std::map<int, std::vector<Edge>> into;
    into[start].push_back(Edge{ctx_.bool_val(true), std::move(st)});
    const auto emit_where = [&](const z3::expr& guard, int head_pred, std::vector<z3::expr> head_args) {
      facts.push_back(guard);
      Emit(facts, head_pred, std::move(head_args));
      facts.pop_back();
    };
    for (const int id : order) {
      CheckLimits();  // a block of thousands of nodes may emit no clause for seconds
      const auto edges_it = into.find(id);
      if (edges_it == into.end()) continue;  // a branch that never goes there
      std::vector<Edge> edges = std::move(edges_it->second);
      into.erase(edges_it);
      z3::expr guard = edges[0].guard;
      State s = std::move(edges[0].st);  // edge 0's values: read from s below
      if (edges.size() > 1) {
        z3::expr_vector any(ctx_);
        for (const Edge& e : edges) any.push_back(e.guard);
        guard = Fresh("reach", ctx_.bool_sort());
        facts.push_back(guard == z3::mk_or(any));
        for (auto& entry : s) {  // not a structured binding: clang 14 lets no lambda capture one
          const std::string& name = entry.first;
          z3::expr& value = entry.second;
          if (!live_[id].count(name)) continue;
          const bool same = std::all_of(edges.begin() + 1, edges.end(), [&](const Edge& e) {
            return z3::eq(e.st.at(name), value);
          });
          if (same) continue;
          const z3::expr merged = Fresh(name, value.get_sort());
          facts.push_back(z3::implies(edges[0].guard, merged == value));
          for (auto e = edges.begin() + 1; e != edges.end(); ++e) {
            facts.push_back(z3::implies(e->guard, merged == e->st.at(name)));
          }
          value = merged;
        }
      }
      // The node's facts are made with its guard on the path (MayLeave may use it), then stored under it.
      const size_t known = facts.size();
      facts.push_back(guard);
      std::vector<std::pair<int, z3::expr>> out;  // successor, the guard of the edge there
      const Node& n = nodes_[id];
      if (n.kind == Node::kBranch) {
        const z3::expr c = Bool(n.cond, s, facts).simplify();
        if (!c.is_false()) out.emplace_back(n.next, c.is_true() ? guard : guard && c);
        if (!c.is_true()) out.emplace_back(n.alt, c.is_false() ? guard : guard && !c);
      } else if (n.stmt->kind == StmtKind::kAssume) {
        out.emplace_back(n.next, guard && Bool(n.stmt->cond, s, facts));
      } else if (n.stmt->kind == StmtKind::kAssert) {
        const z3::expr c = Bool(n.stmt->cond, s, facts);
        out.emplace_back(error_node_, guard && !c);
        out.emplace_back(n.next, guard && c);
      } else {
        Execute(*n.stmt, s, facts);
        out.emplace_back(n.next, guard);
      }
      z3::expr_vector made(ctx_);
      for (size_t k = known + 1; k < facts.size(); ++k) made.push_back(facts[k]);
      facts.erase(facts.begin() + static_cast<std::ptrdiff_t>(known), facts.end());
      if (!made.empty()) facts.push_back(z3::implies(guard, z3::mk_and(made)));
      input_guards_.resize(path_inputs_.size(), guard);
      array_guards_.resize(path_arrays_.size(), guard);
      for (size_t k = 0; k < out.size(); ++k) {
        const auto& [succ, edge_guard] = out[k];
        const Node& t = nodes_[succ];
        if (t.kind == Node::kExit) continue;
        if (t.kind == Node::kError) {
          emit_where(edge_guard, -1, {});
        } else if (t.cut) {
          const int pred = PredReached(succ, s);
          std::vector<z3::expr> args;
          for (const auto& v : sys_.pred_vars[pred]) args.push_back(s.at(v));
          emit_where(edge_guard, pred, std::move(args));
        } else {
          // The last edge takes the values: a copy per node was the encoding's time in a program of thousands
          // of variables (a recursion inlined 1 024 times).
          into[succ].push_back(Edge{edge_guard, k + 1 == out.size() ? std::move(s) : s});
        }
      }
    }
  }

  z3::expr Num(Int128 v) {
    if (symbolic_ && uint_max_) {
      const Int128 m = MaxOf(kUnsigned);
      if (v == m) return *uint_max_;
      if (v == m + 1) return *uint_max_ + 1;
      if (v == -(m + 1)) return -(*uint_max_ + 1);
    }
    for (size_t i = 0; i < constant_params_.size(); ++i) {
      const Int128 k = constants_[i].second;
      if (v >= k - kNear && v <= k + kNear) return constant_params_[i] + Num(v - k);
      if (-v >= k - kNear && -v <= k + kNear) return -(constant_params_[i] + Num(-v - k));
    }
    const bool neg = v < 0;
    std::string s;
    Int128 u = neg ? -v : v;
    do {
      s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
      u /= 10;
    } while (u != 0);
    return ctx_.int_val((neg ? "-" + s : s).c_str());
  }

  // The range of a value of type t (none for the integers of lifted values).
  z3::expr InRange(const z3::expr& x, IntType t) {
    if (t == kWide) return ctx_.bool_val(true);
    return Num(MinOf(t)) <= x && x <= Num(MaxOf(t));
  }

  // True when the path allows e to leave [mn, mx] (a quick query: wrap-around branches that the path
  // rules out are left out of the clause, which keeps Spacer's job linear where the program is).
  bool MayLeave(const z3::expr& e, Int128 mn, Int128 mx, const std::vector<z3::expr>& path) {
    CheckLimits();
    // One solver for all the queries, each in its own scope: creating a solver per query cost more than
    // the queries themselves.
    if (!query_) {
      query_.emplace(ctx_);
      z3::params p(ctx_);
      p.set("timeout", 200u);
      // After push the solver answers with its incremental core, which has its own time limit.
      p.set("solver2_timeout", 200u);
      query_->set(p);
    }
    query_->push();
    for (const auto& c : path) query_->add(c);
    query_->add(e < Num(mn) || e > Num(mx));
    const bool may = query_->check() != z3::unsat;
    query_->pop();
    return may;
  }

  // The value of e after conversion to t, given that e lies in [lo, hi] and the path so far holds.
  z3::expr WrapTo(IntType t, const z3::expr& e, Int128 lo, Int128 hi, const std::vector<z3::expr>& path) {
    if (t.bits == 1) return z3::ite(e != 0, Num(1), Num(0));
    const Int128 mn = MinOf(t), mx = MaxOf(t), m = Int128(1) << t.bits;
    if (lo >= mn && hi <= mx) return e;
    if (!MayLeave(e, mn, mx, path)) return e;

    if (lo >= mn - m && hi <= mx + m) {
      z3::expr r = e;
      if (hi > mx) r = z3::ite(e > Num(mx), e - Num(m), r);
      if (lo < mn) r = z3::ite(e < Num(mn), e + Num(m), r);
      return r;
    }
    const z3::expr r = z3::mod(e - Num(mn), Num(m)) + Num(mn);
    return r;
  }

  // The range of values an expression of this node can take (type range, or the constant).
  static std::pair<Int128, Int128> RangeOf(const ExprPtr& e) {
    if (e->kind == ExprKind::kConst) return {e->value, e->value};
    return {MinOf(e->type), MaxOf(e->type)};
  }

  // The condition e != 0 as a Boolean.
  z3::expr Bool(const ExprPtr& e, State& st, std::vector<z3::expr>& path) {
    if (e->kind == ExprKind::kUnary && e->op == "!") return !Bool(e->args[0], st, path);
    if (e->kind == ExprKind::kBinary) {
      const std::string& op = e->op;
      if (op == "&&") return Bool(e->args[0], st, path) && Bool(e->args[1], st, path);
      if (op == "||") return Bool(e->args[0], st, path) || Bool(e->args[1], st, path);
      if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=") {
        const z3::expr a = Int(e->args[0], st, path), b = Int(e->args[1], st, path);
        if (op == "<") return a < b;
        if (op == "<=") return a <= b;
        if (op == ">") return a > b;
        if (op == ">=") return a >= b;
        if (op == "==") return a == b;
        return a != b;
      }
    }
    return Int(e, st, path) != 0;
  }

  // C division truncates toward zero; SMT div rounds so that the remainder is non-negative.
  z3::expr Divide(const z3::expr& a, const z3::expr& b, bool nonneg_a) {
    if (nonneg_a) return z3::ite(b > 0, a / b, -(a / -b));
    const z3::expr abs_a = z3::ite(a >= 0, a, -a);
    const z3::expr abs_b = z3::ite(b >= 0, b, -b);
    const z3::expr q = abs_a / abs_b;
    return z3::ite((a >= 0) == (b >= 0), q, -q);
  }

  // C's a / b (or a % b, `remainder`) where b is not a numeral, which Spacer's linear arithmetic refuses: a
  // fresh value with linear facts that hold wherever b != 0 (a division by zero is undefined: any value).
  // Exact where |a| < 3|b| or |b| = 1 (the quotient is 0, ±1 or ±2, or ±a); elsewhere the quotient's sign and
  // 2|q| <= |a|, the remainder's sign (a's) and |r| < |b|, |r| <= |a|. An over-approximation proves only what
  // holds; an error it lets Spacer reach is reported only once its inputs, run on the original program,
  // reach it (Verify).
  z3::expr DivideByVariable(const z3::expr& a, const z3::expr& b, bool remainder, std::vector<z3::expr>& path) {
    const std::tuple<unsigned, unsigned, bool> key{a.id(), b.id(), remainder};
    if (const auto made = divisions_.find(key); made != divisions_.end()) return made->second.result;
    const auto abs = [](const z3::expr& x) { return z3::ite(x >= 0, x, -x); };
    const z3::expr abs_a = abs(a), abs_b = abs(b);
    const z3::expr same_sign = (a > 0) == (b > 0);  // of a nonzero quotient
    const z3::expr below_once = abs_a < abs_b, below_twice = abs_a < 2 * abs_b, below_thrice = abs_a < 3 * abs_b;
    const z3::expr x = Fresh(remainder ? "remainder" : "quotient", ctx_.int_sort());
    sys_.bounds_division = true;
    const z3::expr facts =
        remainder
            ? z3::implies(below_once, x == a) &&
                  z3::implies(!below_once && below_twice, x == z3::ite(same_sign, a - b, a + b)) &&
                  z3::implies(!below_twice && below_thrice, x == z3::ite(same_sign, a - 2 * b, a + 2 * b)) &&
                  z3::implies(abs_b == 1, x == 0) && z3::implies(a >= 0, x >= 0) && z3::implies(a <= 0, x <= 0) &&
                  abs(x) < abs_b && abs(x) <= abs_a
            : z3::implies(below_once, x == 0) &&
                  z3::implies(!below_once && below_twice, x == z3::ite(same_sign, Num(1), Num(-1))) &&
                  z3::implies(!below_twice && below_thrice, x == z3::ite(same_sign, Num(2), Num(-2))) &&
                  z3::implies(b == 1, x == a) && z3::implies(b == -1, x == -a) && z3::implies(same_sign, x >= 0) &&
                  z3::implies(!same_sign, x <= 0) && z3::implies(abs_b >= 2, 2 * abs(x) <= abs_a) && abs(x) <= abs_a;
    path.push_back(z3::implies(b != 0, facts));
    divisions_.emplace(key, Division{a, b, x});
    return x;
  }

  // The fewest bits k with hi < 2^k (at least 1).
  static int BitsBelow(Int128 hi) {
    int k = 1;
    while (hi >= (Int128(1) << k)) ++k;
    return k;
  }

  // A range that holds every value of e: its type's, narrowed where e is a constant, a conversion that keeps
  // its operand's values, a choice, or a bitwise operator on non-negative values. It decides how many bits
  // Bitwise takes apart, and casts from narrow types are what C's promotions put around most operands.
  static std::pair<Int128, Int128> ValueRange(const ExprPtr& e) {
    const auto [lo, hi] = RangeOf(e);
    std::pair<Int128, Int128> r{lo, hi};
    if (e->kind == ExprKind::kCast || e->kind == ExprKind::kTernary) {
      const size_t first = e->kind == ExprKind::kCast ? 0 : 1;
      r = ValueRange(e->args[first]);
      for (size_t i = first + 1; i < e->args.size(); ++i) {
        const auto [alo, ahi] = ValueRange(e->args[i]);
        r = {std::min(r.first, alo), std::max(r.second, ahi)};
      }
    } else if (e->kind == ExprKind::kBinary && (e->op == "&" || e->op == "|" || e->op == "^")) {
      const auto [alo, ahi] = ValueRange(e->args[0]);
      const auto [blo, bhi] = ValueRange(e->args[1]);
      if (alo >= 0 && blo >= 0) {
        const Int128 all = (Int128(1) << BitsBelow(std::max(ahi, bhi))) - 1;
        r = {0, e->op == "&" ? std::min(ahi, bhi) : all};
      }
    }
    if (r.first < lo || r.second > hi) return {lo, hi};
    return r;
  }

  // C's a & b, a | b or a ^ b (`op`) of two values that are not both constants, exactly: the operands as sums
  // of bits weighted by powers of two, each bit a fresh Boolean (a case split of the SAT core, where integers
  // 0 or 1 left the arithmetic to enumerate their sums), and the result's bits Boolean functions of theirs.
  // Only as many bits as the ranges need (ValueRange: an unsigned char promoted to int takes 8, not 32).
  // Where one operand is non-negative and below 2^k, k bits of each do: the other is 2^k q plus its low k bits
  // (q a fresh integer, floor division), and the result is 2^k q (| and ^) or 0 (&) plus the k bits. Where both
  // may be negative, two's complement over as many bits as both need: the top bit's weight is negative, and
  // sign extension repeats the top bit and the operator with it. A value taken apart once on a path, or made
  // by an operator here, keeps its bits (Decomposition): two sets of bits of one value are equal only by the
  // uniqueness of binary numbers, which the solver finds by enumerating them.
  z3::expr Bitwise(const std::string& op, const ExprPtr& x, const ExprPtr& y, const z3::expr& a,
                   const z3::expr& b, std::vector<z3::expr>& path) {
    const auto [alo, ahi] = ValueRange(x);
    const auto [blo, bhi] = ValueRange(y);
    const bool a_narrow = alo >= 0 && (blo < 0 || ahi <= bhi);
    const bool negative = alo < 0 && blo < 0;
    int bits = 1;
    if (!negative) {
      bits = BitsBelow(a_narrow ? ahi : bhi);
    } else {
      const Int128 lo = std::min(alo, blo), hi = std::max(ahi, bhi);
      while (lo < -(Int128(1) << (bits - 1)) || hi >= (Int128(1) << (bits - 1))) ++bits;
    }
    const auto weight = [&](int i) { return negative && i == bits - 1 ? -Num(Int128(1) << i) : Num(Int128(1) << i); };
    const auto decompose = [&](const z3::expr& v, Int128 lo, Int128 hi) {
      const bool fits = negative || (lo >= 0 && hi < (Int128(1) << bits));
      const Shape shape{bits, negative, fits};
      const auto known = decompositions_.find(v.id());
      if (known != decompositions_.end() && z3::eq(known->second.value, v) && known->second.shape == shape &&
          (!known->second.fact || std::any_of(path.begin(), path.end(), [&](const z3::expr& c) {
            return z3::eq(c, *known->second.fact);
          }))) {
        return known->second;
      }
      Decomposition d{v, shape, {}, Num(0), std::nullopt};
      z3::expr sum = Num(0);
      for (int i = 0; i < bits; ++i) {
        d.bits.push_back(Fresh("bit", ctx_.bool_sort()));
        sum = sum + z3::ite(d.bits.back(), weight(i), Num(0));
      }
      if (!fits) {
        d.high = Num(Int128(1) << bits) * Fresh("high", ctx_.int_sort());
        sum = d.high + sum;
      }
      d.fact = v == sum;
      path.push_back(*d.fact);
      decompositions_.insert_or_assign(v.id(), d);
      return d;
    };
    const Decomposition da = decompose(a, alo, ahi), db = decompose(b, blo, bhi);
    // One of the high parts is 0; x & y has none.
    const z3::expr high = op == "&" ? Num(0) : da.high + db.high;
    std::vector<z3::expr> rbits;
    z3::expr r = high;
    for (int i = 0; i < bits; ++i) {
      const z3::expr& p = da.bits[i];
      const z3::expr& q = db.bits[i];
      rbits.push_back(op == "&" ? p && q : op == "|" ? p || q : p != q);
      r = r + z3::ite(rbits.back(), weight(i), Num(0));
    }
    const Shape shape{bits, negative, op == "&" || (da.shape.fits && db.shape.fits)};
    decompositions_.insert_or_assign(r.id(), Decomposition{r, shape, rbits, high, std::nullopt});
    return r;
  }

  // The integer value of e.
  z3::expr Int(const ExprPtr& e, State& st, std::vector<z3::expr>& path) {
    switch (e->kind) {
      case ExprKind::kConst:
        return Num(e->value);
      case ExprKind::kVar:
        return st.at(e->name);
      case ExprKind::kIndex: {
        const z3::expr cell = z3::select(st.at(e->name), Int(e->args[0], st, path));
        // A cell holds a value of its type, but nothing says so of one never written (an array's first
        // value is any array of integers): the wrap-around of unsigned and narrow arithmetic, encoded for
        // operands within their types, would otherwise let `a[i] + 1u` keep a value past UINT_MAX, and Spacer
        // find errors no run reaches. (int and long long cells compute exactly: a value past the type there
        // only adds runs.)
        if (!e->type.is_signed || e->type.bits < 32) path.push_back(InRange(cell, e->type));
        return cell;
      }
      case ExprKind::kUnary: {
        if (e->op == "!") return z3::ite(Bool(e->args[0], st, path), Num(0), Num(1));
        const z3::expr a = -Int(e->args[0], st, path);
        if (e->type.is_signed) return a;
        return WrapTo(e->type, a, -MaxOf(e->type), 0, path);
      }
      case ExprKind::kBinary: {
        const std::string& op = e->op;
        if (op == "&&" || op == "||" || op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" ||
            op == "!=") {
          return z3::ite(Bool(e, st, path), Num(1), Num(0));
        }
        const z3::expr a = Int(e->args[0], st, path), b = Int(e->args[1], st, path);
        const auto [alo, ahi] = RangeOf(e->args[0]);
        const auto [blo, bhi] = RangeOf(e->args[1]);
        if (op == "/" || op == "%") {
          const z3::expr divisor = b.simplify();
          // A division by zero is undefined: any value (what the interpreter stops at). Spacer refuses z3's
          // division by the numeral 0 as it does a division by a variable.
          const z3::expr r = !divisor.is_numeral()                   ? DivideByVariable(a, b, op == "%", path)
                             : (divisor == 0).simplify().is_true() ? Fresh("undefined", ctx_.int_sort())
                             : op == "/"                             ? Divide(a, b, alo >= 0)
                                                                     : a - b * Divide(a, b, alo >= 0);
          if (e->type.is_signed) return r;
          return WrapTo(e->type, r, MinOf(e->type), MaxOf(e->type), path);
        }
        if (op == "&" || op == "|" || op == "^") return Bitwise(op, e->args[0], e->args[1], a, b, path);
        if (e->type.is_signed) {
          if (op == "+") return a + b;
          if (op == "-") return a - b;
          return a * b;
        }
        if (op == "+") return WrapTo(e->type, a + b, alo + blo, ahi + bhi, path);
        if (op == "-") return WrapTo(e->type, a - b, alo - bhi, ahi - blo, path);
        // Bounds of the product, saturated at 2^126 where (2^64 - 1)^2 would overflow Int128: enough to tell
        // how often it wraps around.
        const auto product = [](Int128 x, Int128 y) {
          const Int128 limit = Int128(1) << 126;
          return BoundedArithmetic('*', x, y, limit).value_or((x < 0) != (y < 0) ? -limit : limit);
        };
        const Int128 c[] = {product(alo, blo), product(alo, bhi), product(ahi, blo), product(ahi, bhi)};
        return WrapTo(e->type, a * b, *std::min_element(c, c + 4), *std::max_element(c, c + 4), path);
      }
      case ExprKind::kTernary:
        return z3::ite(Bool(e->args[0], st, path), Int(e->args[1], st, path), Int(e->args[2], st, path));
      case ExprKind::kCast: {
        const auto [lo, hi] = RangeOf(e->args[0]);
        return WrapTo(e->type, Int(e->args[0], st, path), lo, hi, path);
      }
      case ExprKind::kCall:
        return CallSummary(*e, st, path);
      case ExprKind::kNondet: {
        const z3::expr x = Fresh("nondet", ctx_.int_sort());
        path.push_back(InRange(x, e->type));
        path_inputs_.push_back(x);
        path_sites_.push_back(InputSite{e->loc, ""});
        return x;
      }
    }
    return Num(0);
  }

  const Program& prog_;
  z3::context& ctx_;
  double time_limit_s_;
  common::Stopwatch clock_;
  double cpu_deadline_s_;  // of cpu_
  ThreadCpuClock cpu_;
  std::vector<Node> nodes_;
  int error_node_ = -1;
  std::vector<std::set<std::string>> live_;  // at every node
  std::map<int, std::string> split_var_;      // cut points split on a dispatch variable: that variable
  std::map<std::pair<int, std::optional<Int128>>, int> pred_of_;  // (cut point, dispatch value) -> predicate
  std::vector<int> pred_nodes_;                                   // each predicate's cut point
  HornSystem sys_;
  std::vector<z3::expr> vars_;
  std::vector<z3::expr> path_inputs_;  // the inputs of the path being walked (HornClause::inputs)
  std::vector<InputSite> path_sites_;  // where it reads them (HornClause::input_sites)
  std::vector<z3::expr> path_arrays_;  // and its fresh arrays (HornClause::input_arrays)
  std::vector<SummaryAtom> path_calls_;  // and the summaries of its calls (HornClause::calls)
  std::map<std::string, int> summary_preds_;  // each procedure's summary predicate, by name
  std::map<std::string, int> context_preds_;  // the context predicate of each that can reach an error
  std::map<int, int> procedure_exits_;        // the exit node of each procedure's body: its summary predicate
  std::vector<z3::expr> input_guards_;  // in a merged block, where each input is read (HornClause::input_guards)
  std::vector<z3::expr> array_guards_;  // and where each array is made
  // The quotients and remainders by a variable that the path being walked has made, each with its facts on
  // the path, by (dividend, divisor, remainder): a division is a function, so the same one made again is the
  // same value (`a[t] = t / K; assert(a[t] == t / K)` with K a symbolic constant holds). The operands are
  // kept so that their ids stay theirs.
  struct Division {
    z3::expr a, b, result;
  };
  std::map<std::tuple<unsigned, unsigned, bool>, Division> divisions_;
  int body_pred_ = -1;
  std::vector<z3::expr> body_args_;
  int counter_ = 0;
  bool symbolic_;
  Blocks blocks_;
  size_t max_clauses_;
  std::optional<z3::expr> uint_max_;  // M of the clause being built (symbolic encodings)
  std::vector<std::pair<std::string, Int128>> constants_;  // the large constants made parameters, by name
  std::vector<z3::expr> constant_params_;                  // their parameters in the clause being built
  std::set<Int128> divisors_;                              // the constant divisors, when there are parameters
  std::optional<z3::solver> query_;   // for MayLeave
  // How Bitwise took a value apart: as many bits, two's complement or not, with a high part or not.
  struct Shape {
    int bits = 0;
    bool negative = false;
    bool fits = true;
    bool operator==(const Shape&) const = default;
  };
  // A value's bits (Booleans, lowest first), its high part (2^bits q, or 0), and the fact on the path that
  // binds them (none for a result of Bitwise, made of its operands' bits). The value is kept: z3 gives a freed
  // term's id to the next.
  struct Decomposition {
    z3::expr value;
    Shape shape;
    std::vector<z3::expr> bits;
    z3::expr high;
    std::optional<z3::expr> fact;
  };
  std::map<unsigned, Decomposition> decompositions_;  // by the value's id
};

}  // namespace

std::vector<BodyAtom> BodyAtoms(const HornClause& c) {
  std::vector<BodyAtom> atoms;
  if (c.body_pred >= 0) atoms.push_back({static_cast<size_t>(c.body_pred), &c.body_args});
  for (const SummaryAtom& call : c.calls) atoms.push_back({static_cast<size_t>(call.pred), &call.args});
  return atoms;
}

z3::expr AtomsHold(z3::context& ctx, const std::vector<BodyAtom>& atoms,
                   const std::function<z3::expr(size_t, const std::vector<z3::expr>&)>& at) {
  if (atoms.empty()) return ctx.bool_val(true);
  if (atoms.size() == 1) return at(atoms[0].pred, *atoms[0].args);
  z3::expr_vector conj(ctx);
  for (const BodyAtom& a : atoms) conj.push_back(at(a.pred, *a.args));
  return z3::mk_and(conj);
}

bool HornSystem::Linear() const {
  return std::none_of(clauses.begin(), clauses.end(), [](const HornClause& c) { return !c.calls.empty(); });
}

z3::expr HornSystem::Formula(z3::context& ctx, const HornClause& c) const {
  const auto apply = [&](int pred, const std::vector<z3::expr>& args) {
    z3::expr_vector a(ctx);
    for (const auto& x : args) a.push_back(x);
    return preds[pred](a);
  };
  z3::expr body = c.constraint;
  if (c.body_pred >= 0) body = apply(c.body_pred, c.body_args) && body;
  for (const SummaryAtom& call : c.calls) body = apply(call.pred, call.args) && body;
  const z3::expr head = c.head_pred >= 0 ? apply(c.head_pred, c.head_args) : ctx.bool_val(false);
  const z3::expr f = z3::implies(body, head);
  if (c.vars.empty()) return f;
  z3::expr_vector vs(ctx);
  for (const auto& v : c.vars) vs.push_back(v);
  return z3::forall(vs, f);
}

std::string SymbolicConstantName(Int128 k) { return fmt::format("#{}", static_cast<long long>(k)); }

HornSystem EncodeHorn(const Program& prog, z3::context& ctx, double time_limit_s, bool symbolic_uint_max,
                      bool symbolic_constants, size_t merge_above_paths, double cpu_limit_s) {
  common::Stopwatch clock;
  const double cpu_deadline_s =
      cpu_limit_s > 0 ? ThreadCpuClock{}.Seconds() + cpu_limit_s : std::numeric_limits<double>::infinity();
  if (!prog.procedures.empty()) {
    try {
      return Encoder(prog, ctx, time_limit_s, cpu_deadline_s, symbolic_uint_max, symbolic_constants, Blocks::kPaths,
                     kMaxClauses)
          .Run();
    } catch (const TooManyPaths&) {
      throw UnsupportedError(prog.file + ": unsupported program: more than " + std::to_string(kMaxClauses) +
                             " clauses (a program with procedure summaries is encoded path by path)");
    }
  }
  if (merge_above_paths > 0) {
    try {
      return Encoder(prog, ctx, time_limit_s, cpu_deadline_s, symbolic_uint_max, symbolic_constants, Blocks::kPaths,
                     merge_above_paths)
          .Run();
    } catch (const TooManyPaths&) {
    }
  }
  try {
    return Encoder(prog, ctx, time_limit_s - clock.Seconds(), cpu_deadline_s, symbolic_uint_max, symbolic_constants,
                   Blocks::kMerged, kMaxClauses)
        .Run();
  } catch (const TooManyPaths&) {
    throw UnsupportedError(prog.file + ": unsupported program: more than " + std::to_string(kMaxClauses) +
                           " clauses, also with the paths between loop heads merged");
  }
}

std::string HornToSmt2(const Program& prog) {
  z3::context ctx;
  return HornToSmt2(EncodeHorn(prog, ctx), ctx);
}

std::string HornToSmt2(const HornSystem& sys, z3::context& ctx) {
  std::string out = "(set-logic HORN)\n";
  for (size_t k = 0; k < sys.preds.size(); ++k) {
    std::string vars;
    for (const auto& v : sys.pred_vars[k]) vars += " " + v;
    out += sys.preds[k].to_string() + " ; " + vars + "\n";
  }
  for (const auto& c : sys.clauses) out += "(assert " + sys.Formula(ctx, c).to_string() + ")\n";
  return out + "(check-sat)\n";
}

}  // namespace fusion
