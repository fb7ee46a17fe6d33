#include "fusion/acceleration.h"

#include <algorithm>

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// No jump goes further (a run this long is beyond any time limit, were the iterations run one by one).
constexpr Int128 kMaxIterations = Int128(1) << 40;
// Bounds that keep the arithmetic of forms and velocities within Int128: a coefficient (up to 2^40) times a
// move (a difference of two values of at most 64 bits), and a velocity (up to 2^80) times an iteration count.
// A value of more than 64 bits (a signed value computed on past its type's range) fails the pass.
constexpr Int128 kMaxValue = Int128(1) << 64;
constexpr Int128 kMaxCoefficient = Int128(1) << 40;
constexpr Int128 kMaxVelocity = Int128(1) << 80;
// What FirstChange says of a constraint that holds for every jump.
constexpr Int128 kNever = kMaxIterations + 1;

// A value on the path as an affine function of the loop's written scalars at the start of the iteration:
// `value` at the current state, plus coefficients (one per written scalar; none: a constant) times how far
// each has moved since.
struct Form {
  Int128 value = 0;
  std::vector<Int128> coefficients;
};

bool IsConstant(const Form& f) {
  return std::all_of(f.coefficients.begin(), f.coefficients.end(), [](Int128 c) { return c == 0; });
}

// How far f moves per iteration when the written scalars move by `moves`.
Int128 Velocity(const Form& f, const std::vector<Int128>& moves) {
  Int128 v = 0;
  for (size_t i = 0; i < f.coefficients.size(); ++i) v += f.coefficients[i] * moves[i];
  return v;
}

// Whether d op 0 holds, for a comparison operator op.
bool Holds(const std::string& op, Int128 d) {
  if (op == "<") return d < 0;
  if (op == "<=") return d <= 0;
  if (op == ">") return d > 0;
  if (op == ">=") return d >= 0;
  if (op == "==") return d == 0;
  return d != 0;
}

Int128 FloorDiv(Int128 a, Int128 b) {
  const Int128 q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// What must hold at every iteration of a jump: a value that keeps within [lo, hi], or a comparison of a
// value with 0 that keeps its truth.
struct Constraint {
  Form form;
  std::string op;  // empty for a range
  Int128 lo = 0;
  Int128 hi = 0;

  // The first iteration j >= 1 at which this no longer holds when the value moves by v per iteration.
  Int128 FirstChange(Int128 v) const {
    const Int128 a = form.value;
    if (v == 0) return kNever;
    if (v > kMaxVelocity || v < -kMaxVelocity) return 1;
    if (op.empty()) return (v > 0 ? (hi - a) / v : (a - lo) / -v) + 1;
    if (op == "==" || op == "!=") {
      if (a == 0) return 1;
      return (-a) % v == 0 && (-a) / v > 0 ? (-a) / v : kNever;
    }
    // A comparison of a monotone value changes its truth at most once.
    const bool now = Holds(op, a);
    if (Holds(op, a + kMaxIterations * v) == now) return kNever;
    Int128 unchanged = 0, changed = kMaxIterations;
    while (changed - unchanged > 1) {
      const Int128 mid = unchanged + (changed - unchanged) / 2;
      (Holds(op, a + mid * v) == now ? unchanged : changed) = mid;
    }
    return changed;
  }
};

// One iteration of the loop, run on forms: the path it takes and the constraints that keep the next
// iterations on it. Anything the jump cannot account for fails the pass.
class Pass {
 public:
  Pass(const std::vector<std::string>& written, const ScalarValue& scalar, const CellValue& cell)
      : written_(written), scalar_(scalar), cell_(cell), entry_(written.size()), current_(written.size()) {}

  // How a statement ends on the path.
  enum class End { kNormal, kContinue, kFail };

  bool failed() const { return failed_; }
  long statements() const { return statements_; }
  const std::vector<Constraint>& constraints() const { return constraints_; }

  // The truth of a value, kept by a constraint unless it is a constant.
  bool Truth(const Form& f) {
    if (!IsConstant(f)) constraints_.push_back({f, "!=", 0, 0});
    return f.value != 0;
  }

  // The moves of the written scalars over this iteration, or nothing where they are not a translation of
  // the state: each scalar's form must move by its own move when the scalars move by theirs.
  std::optional<std::vector<Int128>> Moves() {
    std::vector<Int128> moves(written_.size(), 0);
    for (size_t i = 0; i < written_.size(); ++i) {
      if (!current_[i]) continue;
      if (!entry_[i]) entry_[i] = Value(scalar_(written_[i]));
      if (!entry_[i]) return std::nullopt;
      moves[i] = current_[i]->value - *entry_[i];
    }
    for (size_t i = 0; i < written_.size(); ++i) {
      if (current_[i] && Velocity(*current_[i], moves) != moves[i]) return std::nullopt;
    }
    return moves;
  }

  End Exec(const Stmt& s) {
    ++statements_;
    if (failed_) return End::kFail;
    switch (s.kind) {
      case StmtKind::kBlock:
        for (const StmtPtr& b : s.body) {
          const End e = Exec(*b);
          if (e != End::kNormal) return e;
        }
        return End::kNormal;
      case StmtKind::kAssign: {
        if (s.lhs->kind != ExprKind::kVar) return Fail();
        Form f = Eval(*s.rhs);
        current_[Written(s.lhs->name)] = std::move(f);
        return failed_ ? End::kFail : End::kNormal;
      }
      case StmtKind::kIf: {
        const bool c = Truth(Eval(*s.cond));
        return failed_ ? End::kFail : Exec(*s.body[c ? 0 : 1]);
      }
      case StmtKind::kAssume:
      case StmtKind::kAssert:
        return Truth(Eval(*s.cond)) && !failed_ ? End::kNormal : Fail();
      case StmtKind::kContinue:
        return End::kContinue;
      default:
        return Fail();  // a break, return, error, havoc or loop ends or leaves the path
    }
  }

  Form Eval(const Expr& e) {
    if (failed_) return {};
    switch (e.kind) {
      case ExprKind::kConst:
        return Read(e.value);
      case ExprKind::kVar: {
        const size_t i = Written(e.name);
        if (i == written_.size()) return Read(scalar_(e.name));
        if (!current_[i]) {
          entry_[i] = Value(scalar_(e.name));
          if (!entry_[i]) return {};
          current_[i] = Form{*entry_[i], std::vector<Int128>(written_.size(), 0)};
          current_[i]->coefficients[i] = 1;
        }
        return *current_[i];
      }
      case ExprKind::kIndex: {
        const Form index = Eval(*e.args[0]);
        if (failed_ || !IsConstant(index)) return FailForm();
        return Read(cell_(e.name, static_cast<long long>(index.value)));
      }
      case ExprKind::kUnary: {
        const Form a = Eval(*e.args[0]);
        if (e.op == "!") return {!Truth(a), {}};
        return Fit(e.type, Scaled(a, -1), !e.type.is_signed);
      }
      case ExprKind::kBinary:
        return Binary(e);
      case ExprKind::kTernary:
        return Truth(Eval(*e.args[0])) ? Eval(*e.args[1]) : Eval(*e.args[2]);
      case ExprKind::kCast: {
        const Form a = Eval(*e.args[0]);
        if (e.type.bits > 1) return Fit(e.type, a, true);
        // To _Bool is a test for non-zero, not a wrap-around modulo 2 (`b += 6` leaves a true b true): a
        // comparison, which holds as it holds now until its operand reaches 0.
        if (failed_) return {};
        if (!IsConstant(a)) constraints_.push_back({a, "!=", 0, 0});
        return {a.value != 0, {}};
      }
      case ExprKind::kNondet:
      case ExprKind::kCall:
        return FailForm();
    }
    return FailForm();
  }

 private:
  End Fail() {
    failed_ = true;
    return End::kFail;
  }

  Form FailForm() {
    failed_ = true;
    return {};
  }

  // The index of a written scalar; written_.size() for any other.
  size_t Written(const std::string& name) const {
    return static_cast<size_t>(std::find(written_.begin(), written_.end(), name) - written_.begin());
  }

  // A value read, or a failure where there is none or it is beyond kMaxValue.
  std::optional<Int128> Value(const std::optional<Int128>& v) {
    if (v && *v <= kMaxValue && *v >= -kMaxValue) return v;
    failed_ = true;
    return std::nullopt;
  }

  Form Read(const std::optional<Int128>& v) { return Value(v) ? Form{*v, {}} : Form{}; }

  // f, or a failure where a coefficient is beyond kMaxCoefficient.
  Form Bounded(Form f) {
    for (const Int128 c : f.coefficients) {
      if (c > kMaxCoefficient || c < -kMaxCoefficient) return FailForm();
    }
    return f;
  }

  Form Scaled(const Form& a, Int128 k) {
    // Values are within 64 bits, constants too, but a product of two may not be within Int128.
    const Int128 limit = Int128(1) << 62;
    if ((a.value > limit || a.value < -limit) && (k > limit || k < -limit)) return FailForm();
    Form f{a.value * k, a.coefficients};
    for (Int128& c : f.coefficients) c *= k;
    return Bounded(std::move(f));
  }

  Form Sum(const Form& a, const Form& b, Int128 sign) {
    Form f = Scaled(b, sign);
    f.value += a.value;
    if (f.coefficients.empty()) {
      f.coefficients = a.coefficients;
    } else {
      for (size_t i = 0; i < a.coefficients.size(); ++i) f.coefficients[i] += a.coefficients[i];
    }
    return Bounded(std::move(f));
  }

  Form Binary(const Expr& e) {
    const std::string& op = e.op;
    if (op == "&&" || op == "||") {
      const bool a = Truth(Eval(*e.args[0]));
      if (a == (op == "||")) return {a, {}};
      return {Truth(Eval(*e.args[1])), {}};
    }
    const Form a = Eval(*e.args[0]);
    const Form b = Eval(*e.args[1]);
    if (failed_) return {};
    if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=") {
      Form d = Sum(a, b, -1);
      if (!IsConstant(d)) constraints_.push_back({d, op, 0, 0});
      return {Holds(op, d.value), {}};
    }
    const bool wraps = !e.type.is_signed;
    if (op == "+" || op == "-") return Fit(e.type, Sum(a, b, op == "+" ? 1 : -1), wraps);
    if (op == "*") {
      if (IsConstant(b)) return Fit(e.type, Scaled(a, b.value), wraps);
      if (IsConstant(a)) return Fit(e.type, Scaled(b, a.value), wraps);
      return FailForm();
    }
    // Division, remainder and the bitwise operators are not affine: only of constants, and never undefined.
    if (!IsConstant(a) || !IsConstant(b)) return FailForm();
    if (op == "&") return {a.value & b.value, {}};
    if (op == "|") return {a.value | b.value, {}};
    if (op == "^") return {a.value ^ b.value, {}};
    if (b.value == 0) return FailForm();
    if (e.type.is_signed && b.value == -1 && a.value == MinOf(e.type)) return FailForm();
    return Fit(e.type, {op == "/" ? a.value / b.value : a.value % b.value, {}}, wraps);
  }

  // A value of type t computed as `raw`: where t wraps around, the window of 2^bits values that holds the
  // current value must hold it at every iteration; a signed value must stay within its type.
  Form Fit(IntType t, const Form& raw, bool wraps) {
    if (failed_ || t == kWide || t.bits > 64) return FailForm();
    const Int128 lo = MinOf(t), hi = MaxOf(t);
    const Int128 size = hi - lo + 1;
    const Int128 shift = wraps ? FloorDiv(raw.value - lo, size) * size : 0;
    if (raw.value - shift < lo || raw.value - shift > hi) return FailForm();
    if (!IsConstant(raw)) constraints_.push_back({raw, "", lo + shift, hi + shift});
    return {raw.value - shift, raw.coefficients};
  }

  const std::vector<std::string>& written_;
  const ScalarValue& scalar_;
  const CellValue& cell_;
  std::vector<std::optional<Int128>> entry_;  // the written scalars' values at the start, once read
  std::vector<std::optional<Form>> current_;  // their forms so far, once read or assigned
  std::vector<Constraint> constraints_;
  long statements_ = 0;
  bool failed_ = false;
};

}  // namespace

LoopAccelerator::LoopAccelerator(const StmtPtr& loop) : loop_(*loop) {
  const Effects effects = EffectsOf(loop);
  bool reads_input = false;
  ForEachExpr(loop, [&](const ExprPtr& e) { reads_input = reads_input || (e && HasNondet(e)); });
  possible_ = effects.array_writes.empty() && !effects.nested_loop && !reads_input && !effects.writes.empty();
  written_.assign(effects.writes.begin(), effects.writes.end());
}

std::optional<LoopJump> LoopAccelerator::Plan(const ScalarValue& scalar, const CellValue& cell) const {
  if (!possible_) return std::nullopt;
  Pass pass(written_, scalar, cell);
  if (!pass.Truth(pass.Eval(*loop_.cond)) || pass.failed()) return std::nullopt;
  if (pass.Exec(*loop_.body[0]) == Pass::End::kFail) return std::nullopt;
  if (loop_.step && pass.Exec(*loop_.step) != Pass::End::kNormal) return std::nullopt;
  const std::optional<std::vector<Int128>> moves = pass.Moves();
  if (!moves || std::all_of(moves->begin(), moves->end(), [](Int128 m) { return m == 0; })) return std::nullopt;
  Int128 iterations = kMaxIterations;
  for (const Constraint& c : pass.constraints()) {
    iterations = std::min(iterations, c.FirstChange(Velocity(c.form, *moves)));
  }
  if (iterations < 2) return std::nullopt;
  LoopJump jump{iterations, {}, pass.statements() + 1};
  for (size_t i = 0; i < written_.size(); ++i) {
    if ((*moves)[i] != 0) jump.moves.push_back({written_[i], (*moves)[i]});
  }
  return jump;
}

}  // namespace fusion
