#include "fusion/interpreter.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "common/deep_stack.h"
#include "common/stopwatch.h"
#include "fusion/acceleration.h"
#include "fusion/cpu_clock.h"
#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// The largest magnitude of a value in a run, kWide's bound: a signed result beyond it (computed on past its
// type's range after an overflow, as `s = s * 3` in a loop does) ends the run as undefined, before Int128
// itself would overflow.
constexpr Int128 kMaxMagnitude = Int128(1) << 125;

// How control leaves a statement.
enum class Flow { kNormal, kBreak, kContinue, kReturn, kStop };

// The state of one run: variables, array cells and the input log.
class Machine {
 public:
  Machine(const Program& prog, const InputSource& inputs, long max_steps, double max_seconds,
          const std::atomic<bool>* cancel, double max_cpu_seconds, const CellSource& cells, int max_call_depth)
      : prog_(prog),
        inputs_(inputs),
        cells_(cells),
        max_steps_(max_steps),
        max_seconds_(max_seconds),
        max_cpu_seconds_(max_cpu_seconds),
        cancel_(cancel),
        max_call_depth_(max_call_depth) {}

  RunResult Run() {
    if (Exec(prog_.body) != Flow::kStop) result_.outcome = Outcome::kFinished;
    return result_;
  }

  // Whether the run stopped because its calls went deeper than max_call_depth.
  bool CallsTooDeep() const { return calls_too_deep_; }

 private:
  // Stops the run with an outcome, or with the one a procedure's body ended it with (Call).
  Flow Stop(Outcome o) {
    result_.outcome = ended_in_call_.value_or(o);
    return Flow::kStop;
  }

  // The value of a call of a procedure (Program::procedures): its body run on the arguments, converted to the
  // parameters' types, with the procedure's own variables (not the globals it shares) saved around it, so that a
  // recursive call leaves its caller's as they were. A body that ends the run (a blocking assume, an undefined
  // operation) ends it there: the expression is then undefined, and Stop takes that outcome instead. Deeper than
  // max_call_depth_ calls the run stops (kStepLimit): each level takes the interpreter's own stack, as it takes
  // the compiled program's.
  Int128 Call(const Expr& call) {
    const Procedure& proc = prog_.ProcedureNamed(call.name);
    std::vector<Int128> args;
    for (const ExprPtr& a : call.args) args.push_back(Eval(a));
    if (undefined_) return 0;
    if (call_depth_ >= max_call_depth_) {
      calls_too_deep_ = true;
      ended_in_call_ = Outcome::kStepLimit;
      undefined_ = true;
      return 0;
    }
    auto own = own_vars_.find(proc.name);
    if (own == own_vars_.end()) {
      std::set<std::string> vars = EffectsOf(proc.body).Scalars();
      vars.insert(proc.params.begin(), proc.params.end());
      vars.insert(proc.result);
      for (const std::string& g : proc.globals) vars.erase(g);  // what the call leaves in them stays
      own = own_vars_.emplace(proc.name, std::vector<std::string>(vars.begin(), vars.end())).first;
    }
    std::vector<Int128> globals;
    for (const std::string& g : proc.globals) globals.push_back(Eval(MakeVar(g, prog_.VarNamed(g).type)));
    std::vector<std::optional<Scalar>> saved;
    for (const std::string& v : own->second) {
      const auto it = scalars_.find(v);
      saved.push_back(it == scalars_.end() ? std::nullopt : std::optional<Scalar>(it->second));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      scalars_[proc.params[i]] = {Wrap(prog_.VarNamed(proc.params[i]).type, args[i]), false};
    }
    for (size_t i = 0; i < globals.size(); ++i) scalars_[proc.global_ins[i]] = {globals[i], false};
    ++call_depth_;
    const Flow flow = Exec(proc.body);
    --call_depth_;
    const Int128 result = scalars_[proc.result].value;
    for (size_t k = 0; k < saved.size(); ++k) {
      if (saved[k]) {
        scalars_[own->second[k]] = *saved[k];
      } else {
        scalars_.erase(own->second[k]);
      }
    }
    if (flow == Flow::kStop) {
      ended_in_call_ = result_.outcome;
      undefined_ = true;
      return 0;
    }
    return result;
  }

  // Notes that the run read a nondeterministic value (an uninitialised one, or a __VERIFIER_nondet_* call's);
  // its CPU time limit counts from the first.
  void NoteRead(bool uninitialised = true) {
    if (!result_.read_input) cpu_start_ = cpu_.Seconds();
    result_.read_input = true;
    result_.read_uninitialised = result_.read_uninitialised || uninitialised;
  }

  Int128 Input(IntType t, const InputSite& site) {
    const Int128 v = Wrap(t, inputs_(t, site));
    result_.inputs.push_back(v);
    result_.input_sites.push_back(site);
    return v;
  }

  // The first value read from a cell: the CellSource's, where it has one, else the next input. Logged as read
  // at the cell (`a[3]`); the InputSource gets the array's site, as the clauses name it.
  Int128 CellInput(const std::string& array, long long index, IntType t) {
    const InputSite cell{{}, prog_.CellName(array, index)};
    if (cells_) {
      if (const std::optional<Int128> known = cells_(array, index)) {
        result_.inputs.push_back(Wrap(t, *known));
        result_.input_sites.push_back(cell);
        return result_.inputs.back();
      }
    }
    const Int128 v = Input(t, InputSite{{}, array});
    result_.input_sites.back() = cell;
    return v;
  }

  // Sets undefined_ where cell i of `array` is none that C's run may touch: outside the cells its allocation or
  // declaration made (a havoc with a size; none yet: a null pointer), or, where `array` holds a member of objects
  // on the heap, of an object never allocated (a null pointer, or one never set, followed). C's run has no
  // meaning from there, as after a division by zero. Returns whether the cell is one.
  bool CheckCell(const std::string& array, long long i) {
    if (const auto extent = extents_.find(array); extent != extents_.end() && (i < 0 || i >= extent->second)) {
      undefined_ = true;
    }
    if (!prog_.heap_fields.empty() && prog_.heap_fields.count(array)) {
      const auto objects = scalars_.find(prog_.heap_objects);
      if (i <= 0 || objects == scalars_.end() || i > objects->second.value) undefined_ = true;
    }
    return !undefined_;
  }

  // Notes the cells of `array` that havoc s makes: its size in bytes over a cell's (a pointer's by the data
  // model), or no bound where s has no size or makes the members of objects (indexed by object number).
  void NoteExtent(const Stmt& s, IntType cell) {
    if (!s.size || prog_.heap_fields.count(s.name)) {
      extents_.erase(s.name);
      return;
    }
    const Int128 bytes = Eval(s.size);
    const Int128 cell_bytes = cell == kHeapRef ? prog_.pointer_bytes : (cell.bits + 7) / 8;
    extents_[s.name] = static_cast<long long>(std::min<Int128>(bytes / cell_bytes, Int128(1) << 62));
  }

  // Evaluates an expression; sets undefined_ on division by zero and beyond kMaxMagnitude.
  Int128 Eval(const ExprPtr& e) {
    switch (e->kind) {
      case ExprKind::kConst:
        return e->value;
      case ExprKind::kVar: {
        auto it = scalars_.find(e->name);
        if (it != scalars_.end()) {
          if (it->second.unread_havoc) {
            NoteRead();
            it->second.unread_havoc = false;
          }
          return it->second.value;
        }
        NoteRead();
        return (scalars_[e->name] = {Input(e->type, InputSite{{}, e->name}), false}).value;
      }
      case ExprKind::kIndex: {
        auto& cells = arrays_[e->name];
        const long long i = static_cast<long long>(Eval(e->args[0]));
        if (!CheckCell(e->name, i)) return 0;
        auto it = cells.find(i);
        if (it != cells.end()) return it->second;
        NoteRead();
        return cells[i] = CellInput(e->name, i, e->type);
      }
      case ExprKind::kUnary: {
        const Int128 a = Eval(e->args[0]);
        if (e->op[0] == '!') return a == 0;
        return e->type.is_signed ? Signed(e->type, -a) : Wrap(e->type, -a);
      }
      case ExprKind::kBinary:
        return Binary(e);
      case ExprKind::kTernary:
        return Eval(e->args[0]) != 0 ? Eval(e->args[1]) : Eval(e->args[2]);
      case ExprKind::kCast:
        return Wrap(e->type, Eval(e->args[0]));
      case ExprKind::kNondet:
        NoteRead(false);
        return Input(e->type, InputSite{e->loc, ""});
      case ExprKind::kCall:
        return Call(*e);
    }
    return 0;
  }

  // An operator's spelling as one number (its first two characters), to switch on: the operators are
  // compared on every evaluation, and string comparisons took a third of the interpreter's time.
  static constexpr int Key(char first, char second = 0) { return first | second << 8; }

  Int128 Binary(const ExprPtr& e) {
    const std::string& op = e->op;
    const int key = Key(op[0], op.size() > 1 ? op[1] : 0);
    if (key == Key('&', '&')) return Eval(e->args[0]) != 0 && Eval(e->args[1]) != 0;
    if (key == Key('|', '|')) return Eval(e->args[0]) != 0 || Eval(e->args[1]) != 0;
    const Int128 a = Eval(e->args[0]);
    const Int128 b = Eval(e->args[1]);
    Int128 r = 0;
    switch (key) {
      case Key('<'): return a < b;
      case Key('<', '='): return a <= b;
      case Key('>'): return a > b;
      case Key('>', '='): return a >= b;
      case Key('=', '='): return a == b;
      case Key('!', '='): return a != b;
      case Key('+'): case Key('-'): case Key('*'): {
        // Unsigned types wrap around, and so do the integers of lifted values (kWide), modulo 2^126: still
        // congruent modulo 2^32, so an equality that fails in the original fails here too
        // (tests/fusion/lift_test.cc).
        if (!e->type.is_signed || e->type == kWide) return Wrap(e->type, ModularArithmetic(op[0], a, b));
        // A signed result is computed as the integers do, beyond its type too (noted), up to kMaxMagnitude.
        const std::optional<Int128> exact = BoundedArithmetic(op[0], a, b, kMaxMagnitude);
        if (!exact) {
          result_.signed_overflow = true;
          undefined_ = true;
          return 0;
        }
        r = *exact;
        break;
      }
      case Key('/'): case Key('%'):
        if (b == 0) {
          undefined_ = true;
          return 0;
        }
        // INT_MIN / -1 overflows, and so, in C11, does INT_MIN % -1.
        if (e->type.is_signed && b == -1 && a == MinOf(e->type)) result_.signed_overflow = true;
        r = key == Key('/') ? a / b : a % b;  // C and C++ both truncate toward zero
        break;
      // Both operands hold values of the type, so Int128's two's complement has their bits, sign extended.
      case Key('&'): return a & b;
      case Key('|'): return a | b;
      case Key('^'): return a ^ b;
    }
    return e->type.is_signed ? Signed(e->type, r) : Wrap(e->type, r);
  }

  // A signed result, noting when it is out of its type's range (kWide has no range to leave).
  Int128 Signed(IntType t, Int128 r) {
    if (t != kWide && (r < MinOf(t) || r > MaxOf(t))) result_.signed_overflow = true;
    return r;
  }

  // Evaluates a condition; false when the evaluation was undefined (the caller then stops).
  bool Test(const ExprPtr& e) { return Eval(e) != 0; }

  // True when the step or time budget is spent or the run is cancelled (the clock and the flag are read
  // every 2^12 steps: well under a millisecond).
  bool OutOfBudget() {
    ++result_.steps;
    if (result_.steps > max_steps_) return true;
    if (result_.steps < next_clock_check_) return false;
    next_clock_check_ = result_.steps + 0x1000;
    return clock_.Seconds() > max_seconds_ ||
           (max_cpu_seconds_ > 0 && result_.read_input && cpu_.Seconds() - cpu_start_ > max_cpu_seconds_) ||
           (cancel_ && cancel_->load(std::memory_order_relaxed));
  }

  Flow Exec(const StmtPtr& s) {
    if (OutOfBudget()) return Stop(Outcome::kStepLimit);
    switch (s->kind) {
      case StmtKind::kBlock:
        for (const auto& b : s->body) {
          const Flow f = Exec(b);
          if (f != Flow::kNormal) return f;
        }
        return Flow::kNormal;
      case StmtKind::kAssign: {
        const Int128 v = Eval(s->rhs);
        if (s->lhs->kind == ExprKind::kVar) {
          scalars_[s->lhs->name] = {v, false};
        } else {
          const long long i = static_cast<long long>(Eval(s->lhs->args[0]));
          if (CheckCell(s->lhs->name, i)) arrays_[s->lhs->name][i] = v;
        }
        return undefined_ ? Stop(Outcome::kUndefined) : Flow::kNormal;
      }
      case StmtKind::kHavoc:
        if (const Var& v = prog_.VarNamed(s->name); v.is_array) {
          NoteExtent(*s, v.type);
          if (undefined_) return Stop(Outcome::kUndefined);
          arrays_[s->name].clear();  // fresh cells: each is read as a new input
        } else {
          scalars_[s->name] = {Input(prog_.VarNamed(s->name).type, InputSite{{}, s->name}), true};
        }
        return Flow::kNormal;
      case StmtKind::kAssume: {
        const bool ok = Test(s->cond);
        if (undefined_) return Stop(Outcome::kUndefined);
        return ok ? Flow::kNormal : Stop(Outcome::kBlocked);
      }
      case StmtKind::kAssert: {
        const bool ok = Test(s->cond);
        if (undefined_) return Stop(Outcome::kUndefined);
        return ok ? Flow::kNormal : Stop(Outcome::kError);
      }
      case StmtKind::kError:
        return Stop(Outcome::kError);
      case StmtKind::kIf: {
        const bool c = Test(s->cond);
        if (undefined_) return Stop(Outcome::kUndefined);
        return Exec(s->body[c ? 0 : 1]);
      }
      case StmtKind::kLoop:
        return Loop(s);
      case StmtKind::kBreak:
        return Flow::kBreak;
      case StmtKind::kContinue:
        return Flow::kContinue;
      case StmtKind::kReturn:
        return Flow::kReturn;
    }
    return Flow::kNormal;
  }

  Flow Loop(const StmtPtr& s) {
    Acceleration& acceleration = accelerations_.try_emplace(s.get(), s).first->second;
    bool first = true;
    while (true) {
      if (!(first && s->do_while)) {
        if (acceleration.planner.possible() && --acceleration.wait <= 0) Jump(acceleration);
        const bool c = Test(s->cond);
        if (undefined_) return Stop(Outcome::kUndefined);
        if (!c) return Flow::kNormal;
      }
      first = false;
      const Flow f = Exec(s->body[0]);
      if (f == Flow::kBreak) return Flow::kNormal;
      if (f == Flow::kReturn || f == Flow::kStop) return f;
      if (s->step) {
        const Flow g = Exec(s->step);
        if (g != Flow::kNormal) return g;
      }
      if (OutOfBudget()) return Stop(Outcome::kStepLimit);
    }
  }

  // A loop's jumps (acceleration.h), and how many iterations to run before the next try: after a try that
  // found no jump, twice as many as after the one before, up to 4096, which bounds the cost of trying on a
  // loop whose iterations never repeat a path (a try costs about as much as ten iterations).
  struct Acceleration {
    explicit Acceleration(const StmtPtr& loop) : planner(loop) {}
    LoopAccelerator planner;
    long wait = 0;
    long backoff = 1;
  };

  // Jumps over the coming iterations of a loop where they repeat one path as a translation of the state;
  // the jump counts as the steps of one iteration.
  void Jump(Acceleration& acceleration) {
    const std::optional<LoopJump> jump = acceleration.planner.Plan(
        [&](const std::string& name) -> std::optional<Int128> {
          const auto it = scalars_.find(name);
          if (it == scalars_.end() || it->second.unread_havoc) return std::nullopt;
          return it->second.value;
        },
        [&](const std::string& array, long long index) -> std::optional<Int128> {
          const auto cells = arrays_.find(array);
          if (cells == arrays_.end()) return std::nullopt;
          const auto it = cells->second.find(index);
          if (it == cells->second.end()) return std::nullopt;
          return it->second;
        });
    if (!jump) {
      acceleration.backoff = std::min(2 * acceleration.backoff, 4096L);
      acceleration.wait = acceleration.backoff;
      return;
    }
    acceleration.backoff = 1;
    for (const auto& [name, move] : jump->moves) scalars_[name].value += jump->iterations * move;
    result_.steps += jump->statements;
  }

  const Program& prog_;
  const InputSource& inputs_;
  const CellSource& cells_;
  long max_steps_;
  double max_seconds_;
  double max_cpu_seconds_;
  const std::atomic<bool>* cancel_;
  common::Stopwatch clock_;
  ThreadCpuClock cpu_;
  double cpu_start_ = cpu_.Seconds();
  long next_clock_check_ = 0x1000;
  RunResult result_;
  bool undefined_ = false;
  const int max_call_depth_;  // calls of procedures deeper than this stop the run (Interpret)
  int call_depth_ = 0;
  bool calls_too_deep_ = false;  // CallsTooDeep
  std::optional<Outcome> ended_in_call_;  // how a procedure's body ended the run (Call)
  std::unordered_map<std::string, std::vector<std::string>> own_vars_;  // each procedure's variables (Call)
  // A scalar's value, and whether it is a havoc's not yet read.
  struct Scalar {
    Int128 value = 0;
    bool unread_havoc = false;
  };
  std::unordered_map<std::string, Scalar> scalars_;
  std::unordered_map<std::string, std::unordered_map<long long, Int128>> arrays_;
  std::unordered_map<std::string, long long> extents_;  // the cells each array has, where a havoc sized it
  std::unordered_map<const Stmt*, Acceleration> accelerations_;
};

}  // namespace

RunResult Interpret(const Program& prog, const InputSource& inputs, long max_steps, double max_seconds,
                    const std::atomic<bool>* cancel, double max_cpu_seconds, const CellSource& cells) {
  // A call of a procedure recurses on the interpreter's own stack (Machine::Call), about 1.5 KB a level in the
  // Release build (measured on count(1999)), several times that under the sanitizers: within a thread's 8 MB,
  // 500 levels. A run that goes deeper runs again on the same inputs on a stack of its own, which takes 10 000
  // (SV-COMP's id_o1000 reaches its error 1000 calls deep). Not every run: a thread with such a stack costs
  // about 0.1 ms, more than a whole run of most programs.
  constexpr int kCallDepth = 500;
  constexpr int kDeepCallDepth = 10000;
  constexpr size_t kDeepStackBytes = size_t{1} << 30;
  if (prog.procedures.empty()) {
    return Machine(prog, inputs, max_steps, max_seconds, cancel, max_cpu_seconds, cells, kCallDepth).Run();
  }
  std::vector<Int128> drawn;
  const InputSource logged = [&](IntType t, const InputSite& site) {
    drawn.push_back(inputs(t, site));
    return drawn.back();
  };
  Machine shallow(prog, logged, max_steps, max_seconds, cancel, max_cpu_seconds, cells, kCallDepth);
  RunResult result = shallow.Run();
  if (!shallow.CallsTooDeep()) return result;
  size_t replayed = 0;
  const InputSource again = [&](IntType t, const InputSite& site) {
    return replayed < drawn.size() ? drawn[replayed++] : inputs(t, site);
  };
  // Where no such thread can be made, the shallow run stands: it stopped at its depth (kStepLimit).
  common::RunWithStack(kDeepStackBytes, [&] {
    result = Machine(prog, again, max_steps, max_seconds, cancel, max_cpu_seconds, cells, kDeepCallDepth).Run();
  });
  return result;
}

std::string OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kFinished: return "finished";
    case Outcome::kError: return "error";
    case Outcome::kBlocked: return "blocked";
    case Outcome::kUndefined: return "undefined";
    case Outcome::kStepLimit: return "step limit";
  }
  return "";
}

}  // namespace fusion
