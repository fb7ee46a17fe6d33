#include "fusion/polynomial.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>

#include "common/rng.h"
#include "common/stopwatch.h"
#include "fusion/affine_hull.h"

namespace fusion {
namespace {

// Thrown when the time runs out.
struct OutOfTime {};

// States found per predicate before the guess: the monomials' count plus this many, so that a spurious
// equality is unlikely to survive the sampling.
constexpr size_t kExtraStates = 24;
// The share of the time limit that finding states may take; the rest is the check's.
constexpr double kSamplingShare = 0.5;
// States with a larger value are not kept: a loop that multiplies (geo1's `x = x * z + 1`) would otherwise give
// monomials of thousands of digits, and the hull's arithmetic on them would take seconds.
constexpr size_t kMaxStateBits = 40;
// How many successors a clause with a predicate in its body is asked for per round.
constexpr size_t kStepsPerRound = 4;
// How often a step draws again, each time without one value that its clause ruled out.
constexpr size_t kMaxRedraws = 8;
// The most monomials that the products of the kept equalities range over (Guesses).
constexpr size_t kMaxImpliedMonomials = 220;
// Rounds in a row that find no new state before the sampling stops.
constexpr size_t kStaleRounds = 8;
// Z3's resource limit of one query: of the sampling, and of the check (nonlinear arithmetic may not decide it at
// all, and an inconclusive query only drops candidates). Not a "timeout": Z3 4.8.12's timer deadlocked with the
// watchdog's interrupt (solver.cc) in a child that both ended (nla-digbench's ps2, one run in three), and a
// resource limit gives the same answer on a loaded machine as on an idle one.
constexpr unsigned kSampleRlimit = 200'000;
constexpr unsigned kCheckRlimit = 500'000;

// The monomials of degree 1 (0 with with_one) to `degree` over `vars` (argument indices), by degree, each sorted.
std::vector<Monomial> MonomialsUpTo(const std::vector<size_t>& vars, size_t degree, bool with_one = false) {
  std::vector<Monomial> out;
  if (with_one) out.emplace_back();
  std::vector<Monomial> last = {{}};
  for (size_t d = 1; d <= degree; ++d) {
    std::vector<Monomial> next;
    for (const Monomial& m : last) {
      for (size_t k = 0; k < vars.size(); ++k) {
        if (!m.empty() && vars[k] < m.back()) continue;
        Monomial grown = m;
        grown.push_back(vars[k]);
        next.push_back(std::move(grown));
      }
    }
    out.insert(out.end(), next.begin(), next.end());
    last = std::move(next);
  }
  return out;
}

// How many monomials of degree 1 to `degree` over n variables there are: C(n + degree, degree) - 1.
size_t MonomialCount(size_t n, size_t degree) {
  size_t c = 1;
  for (size_t k = 1; k <= degree; ++k) c = c * (n + k) / k;
  return c - 1;
}

// The state samples of every predicate: the values of its integer arguments in states that the clauses reach.
class Sampler {
 public:
  Sampler(const HornSystem& sys, z3::context& ctx, const std::vector<std::vector<size_t>>& ints,
          const common::Stopwatch& clock, double deadline_s)
      : sys_(sys), ctx_(ctx), ints_(ints), clock_(clock), deadline_s_(deadline_s), solver_(ctx, z3::solver::simple()),
        states_(sys.preds.size()), seen_(sys.preds.size()) {}

  // Asks every clause for successors of the states found, round after round, until each predicate has `wanted`
  // states, kStaleRounds rounds in a row find none, or the deadline passes. A clause with no predicate in its body
  // (a start) gives a quarter of its head's states at most: its states are all at the start of their loops, and
  // equalities of those alone (`n == 0`) would be guessed.
  void Run(const std::vector<size_t>& wanted) {
    std::vector<size_t> given(sys_.clauses.size(), 0);
    for (size_t stale = 0; stale < kStaleRounds;) {
      bool found = false;
      bool short_of = false;
      for (size_t k = 0; k < sys_.clauses.size(); ++k) {
        const HornClause& c = sys_.clauses[k];
        if (c.head_pred < 0) continue;
        const auto q = static_cast<size_t>(c.head_pred);
        if (states_[q].size() >= wanted[q]) continue;
        short_of = true;
        const bool start = c.body_pred < 0 && c.calls.empty();
        for (size_t step = 0; step < (start ? 1 : kStepsPerRound); ++step) {
          if (clock_.Seconds() > deadline_s_) return;
          if (start && given[k] >= std::max<size_t>(4, wanted[q] / 4)) break;
          if (Step(c)) {
            ++given[k];
            found = true;
          }
        }
      }
      if (!short_of) return;
      stale = found ? 0 : stale + 1;
    }
  }

  const std::vector<std::vector<mpz_class>>& States(size_t pred) const { return states_[pred]; }

 private:
  // One successor of states found through c, with its inputs and free head arguments drawn at random where the
  // clause allows them; returns whether it is a new state.
  bool Step(const HornClause& c) {
    const std::vector<BodyAtom> atoms = BodyAtoms(c);
    for (const BodyAtom& a : atoms) {
      if (states_[a.pred].empty()) return false;
    }
    solver_.push();
    solver_.add(c.constraint);
    for (const BodyAtom& a : atoms) {
      // The newest states half the time: they lead deeper into the loops.
      const auto& found = states_[a.pred];
      const size_t recent = std::min<size_t>(found.size(), 4);
      const size_t pick = rng_.Below(2) == 0 ? found.size() - 1 - rng_.Below(recent) : rng_.Below(found.size());
      for (size_t k = 0; k < ints_[a.pred].size(); ++k) {
        solver_.add((*a.args)[ints_[a.pred][k]] == ctx_.int_val(found[pick][k].get_str().c_str()));
      }
    }
    // Random values for the inputs and the head's arguments, as assumptions: those the clause rules out
    // are dropped by the unsat core.
    const auto q = static_cast<size_t>(c.head_pred);
    std::vector<z3::expr> drawn;
    for (const z3::expr& input : c.inputs) {
      if (input.is_int()) drawn.push_back(input);
    }
    for (size_t i : ints_[q]) {
      if (rng_.Below(2) == 0) drawn.push_back(c.head_args[i]);
    }
    z3::expr_vector assumptions(ctx_);
    for (size_t k = 0; k < drawn.size(); ++k) {
      // Mostly small and not negative: the loops of most programs run on such inputs, and a small state's
      // monomials stay small.
      const uint64_t kind = rng_.Below(8);
      const int64_t value = kind == 0   ? -1 - static_cast<int64_t>(rng_.Below(16))
                            : kind == 1 ? static_cast<int64_t>(rng_.Below(200))
                                        : static_cast<int64_t>(rng_.Below(17));
      const z3::expr pick = ctx_.bool_const(("polynomial_draw_" + std::to_string(k)).c_str());
      solver_.add(z3::implies(pick, drawn[k] == ctx_.int_val(value)));
      assumptions.push_back(pick);
    }
    // An unsat core drops the last draw it holds (a head argument's before an input's) and the rest are tried
    // again: a head argument drawn against an input drawn must not lose the input's draw.
    std::optional<z3::model> model;
    for (size_t attempt = 0; attempt <= kMaxRedraws && !model; ++attempt) {
      if (!SetLimit()) break;
      const z3::check_result r = attempt == kMaxRedraws ? solver_.check() : solver_.check(assumptions);
      if (r == z3::sat) {
        model = solver_.get_model();
      } else if (r == z3::unsat && attempt < kMaxRedraws && !assumptions.empty()) {
        const z3::expr_vector core = solver_.unsat_core();
        int last = -1;
        for (unsigned i = 0; i < assumptions.size(); ++i) {
          for (unsigned j = 0; j < core.size(); ++j) {
            if (z3::eq(core[j], assumptions[i])) last = static_cast<int>(i);
          }
        }
        z3::expr_vector kept(ctx_);
        for (unsigned i = 0; i < assumptions.size(); ++i) {
          if (static_cast<int>(i) != last) kept.push_back(assumptions[i]);
        }
        if (last < 0) kept = z3::expr_vector(ctx_);
        assumptions = kept;
      } else {
        break;
      }
    }
    bool added = false;
    if (model) {
      std::vector<mpz_class> state;
      for (size_t i : ints_[q]) {
        const std::optional<mpz_class> v = IntegerOf(model->eval(c.head_args[i], true));
        if (!v) break;
        state.push_back(*v);
      }
      const bool small = std::all_of(state.begin(), state.end(), [](const mpz_class& v) {
        return mpz_sizeinbase(v.get_mpz_t(), 2) <= kMaxStateBits;
      });
      if (small && state.size() == ints_[q].size() && seen_[q].insert(state).second) {
        states_[q].push_back(std::move(state));
        added = true;
      }
    }
    solver_.pop();
    return added;
  }

  // Sets the resource limit of the next query; false once the deadline has passed.
  bool SetLimit() {
    const double left_s = deadline_s_ - clock_.Seconds();
    if (left_s <= 0) return false;
    z3::params p(ctx_);
    p.set("rlimit", kSampleRlimit);
    solver_.set(p);
    return true;
  }

  const HornSystem& sys_;
  z3::context& ctx_;
  const std::vector<std::vector<size_t>>& ints_;
  const common::Stopwatch& clock_;
  double deadline_s_;
  z3::solver solver_;
  common::Rng rng_{1};
  std::vector<std::vector<std::vector<mpz_class>>> states_;
  std::vector<std::set<std::vector<mpz_class>>> seen_;
};

// The equalities guessed at one predicate: the affine hull of its states' monomials, each of the hull's
// equalities a vector over the monomials and 1 (whose coefficient is minus the constant). Those that the others
// before them imply are not checked (`z * n == 6 * n * n + 6 * n` follows from `z == 6 * n + 6`, and would only
// slow the check), but are added once the others are proved: nonlinear arithmetic would not derive them.
class Guesses {
 public:
  // From `states`, the values of the arguments `vars`, over the arguments that vary.
  Guesses(const std::vector<std::vector<mpz_class>>& states, const std::vector<size_t>& vars) : vars_(vars) {
    std::vector<size_t> varying;  // positions in vars
    for (size_t k = 0; k < vars.size(); ++k) {
      if (std::any_of(states.begin(), states.end(), [&](const auto& s) { return s[k] != states[0][k]; })) {
        varying.push_back(k);
      }
    }
    size_t degree = 0;
    while (degree < kMaxPolynomialDegree && MonomialCount(varying.size(), degree + 1) <= kMaxMonomials &&
           MonomialCount(varying.size(), degree + 1) + kExtraStates <= states.size()) {
      ++degree;
    }
    if (degree < 2) return;
    // The products of the equalities go one degree past the guess where that many monomials are few enough:
    // the hull's `a * r == 0` then follows from a degree-2 `r == 0` that cancels a product's degree-3 terms.
    degree_ = degree;
    wide_degree_ = MonomialCount(varying.size(), degree + 1) <= kMaxImpliedMonomials ? degree + 1 : degree;
    wide_ = MonomialsUpTo(varying, wide_degree_);  // those of the guess first, in their order
    varying_ = std::move(varying);
    for (size_t i = 0; i < wide_.size(); ++i) index_[wide_[i]] = i;
    const size_t guessed = MonomialCount(varying_.size(), degree);
    AffineHull hull(guessed);
    for (const auto& s : states) {
      std::vector<mpq_class> point;
      for (size_t i = 0; i < guessed; ++i) {
        mpz_class v = 1;
        for (size_t k : wide_[i]) v *= s[k];
        point.emplace_back(v);
      }
      hull.Add(point);
    }
    for (auto& [coeffs, constant] : hull.Equalities()) {
      std::vector<mpq_class> v(wide_.size() + 1, 0);
      for (size_t i = 0; i < coeffs.size(); ++i) v[i] = coeffs[i];
      v.back() = -constant;
      found_.push_back(std::move(v));
    }
    std::stable_sort(found_.begin(), found_.end(),
                     [&](const auto& a, const auto& b) { return DegreeOf(a) < DegreeOf(b); });
    AffineHull implied = Span({}, wide_degree_);
    for (size_t f = 0; f < found_.size(); ++f) {
      if (!implied.Add(found_[f])) continue;
      generators_.push_back(f);
      AddProducts(found_[f], wide_degree_, implied);
    }
  }

  // The equalities to check: those the ones before them do not imply.
  const std::vector<size_t>& Generators() const { return generators_; }
  // The equality found_[f].
  PolynomialEquality Equality(size_t f) const {
    const std::vector<mpq_class>& v = found_[f];
    PolynomialEquality e;
    const mpz_class scale = DenominatorLcm(v);
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      if (v[i] == 0) continue;
      Monomial args;
      for (size_t k : wide_[i]) args.push_back(vars_[k]);
      e.terms.emplace_back(mpq_class(v[i] * scale).get_num(), std::move(args));
    }
    e.constant = mpq_class(-v.back() * scale).get_num();
    return e;
  }
  // The nonlinear equalities found that the generators `kept` imply (sums of their products with monomials),
  // themselves excepted.
  std::vector<PolynomialEquality> ImpliedBy(const std::vector<size_t>& kept) const {
    const AffineHull implied = Span(kept, wide_degree_);
    std::vector<PolynomialEquality> out;
    for (size_t f = 0; f < found_.size(); ++f) {
      if (DegreeOf(found_[f]) < 2 || std::find(kept.begin(), kept.end(), f) != kept.end()) continue;
      if (!AffineHull(implied).Add(found_[f])) out.push_back(Equality(f));
    }
    return out;
  }

 private:
  size_t DegreeOf(const std::vector<mpq_class>& v) const {
    size_t d = 0;
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      if (v[i] != 0) d = std::max(d, wide_[i].size());
    }
    return d;
  }
  // The span of the products of found_[f] for f in `of` with every monomial within `degree`.
  AffineHull Span(const std::vector<size_t>& of, size_t degree) const {
    AffineHull span(wide_.size() + 1);
    span.Add(std::vector<mpq_class>(wide_.size() + 1, 0));
    for (size_t f : of) AddProducts(found_[f], degree, span);
    return span;
  }
  // Adds the products of v with every monomial within `degree` to span.
  void AddProducts(const std::vector<mpq_class>& v, size_t degree, AffineHull& span) const {
    if (DegreeOf(v) > degree) return;
    for (const Monomial& m : MonomialsUpTo(varying_, degree - DegreeOf(v), true)) {
      std::vector<mpq_class> product(v.size(), 0);
      for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] == 0) continue;
        Monomial t = i + 1 < v.size() ? wide_[i] : Monomial{};
        t.insert(t.end(), m.begin(), m.end());
        std::sort(t.begin(), t.end());
        product[t.empty() ? v.size() - 1 : index_.at(t)] += v[i];
      }
      span.Add(product);
    }
  }

  std::vector<size_t> vars_;
  std::vector<size_t> varying_;  // positions in vars_
  size_t degree_ = 0;  // of the guess
  size_t wide_degree_ = 0;
  std::vector<Monomial> wide_;  // over positions in vars_
  std::map<Monomial, size_t> index_;
  std::vector<std::vector<mpq_class>> found_;
  std::vector<size_t> generators_;
};

// The pairs of predicate p's arguments (by index, the smaller first) that a comparison in a clause compares
// with each other and nothing else, where p is in the clause's body (its loop's guard: `n <= a`).
std::set<std::pair<size_t, size_t>> ComparedPairs(const HornSystem& sys, size_t p) {
  std::set<std::pair<size_t, size_t>> out;
  for (const HornClause& c : sys.clauses) {
    for (const BodyAtom& atom : BodyAtoms(c)) {
      if (atom.pred != p) continue;
      std::map<unsigned, size_t> position;
      for (size_t i = 0; i < atom.args->size(); ++i) position.emplace((*atom.args)[i].id(), i);
      std::unordered_set<unsigned> visited;
      std::vector<z3::expr> pending = {c.constraint};
      while (!pending.empty()) {
        const z3::expr t = pending.back();
        pending.pop_back();
        if (!t.is_app() || !visited.insert(t.id()).second) continue;
        for (unsigned i = 0; i < t.num_args(); ++i) pending.push_back(t.arg(i));
        const Z3_decl_kind kind = t.decl().decl_kind();
        if (kind != Z3_OP_LE && kind != Z3_OP_LT && kind != Z3_OP_GE && kind != Z3_OP_GT && kind != Z3_OP_EQ) continue;
        // The arguments of p that the comparison mentions; any other variable rules it out.
        std::set<size_t> mentioned;
        bool others = false;
        std::vector<z3::expr> within = {t};
        while (!within.empty() && !others) {
          const z3::expr u = within.back();
          within.pop_back();
          const auto at = position.find(u.id());
          if (at != position.end()) {
            mentioned.insert(at->second);
          } else if (u.is_const() && !u.is_numeral()) {
            others = true;
          } else if (u.is_app()) {
            for (unsigned i = 0; i < u.num_args(); ++i) within.push_back(u.arg(i));
          }
        }
        if (!others && mentioned.size() == 2) out.emplace(*mentioned.begin(), *mentioned.rbegin());
      }
    }
  }
  return out;
}

// The disjunctions guessed at one predicate from its states (over its integer arguments `ints`, of `arity`
// arguments in all): for each of its known bounds and each term t over the integer arguments, x and -x of each and
// x + y, x - y, -x + y, -x - y of each pair in `pairs` (argument indices: those a guard compares), but the
// bound's own, "the bound reached, or t >= m", m the least t of the states where the bound is not reached, unless
// a known bound says t >= m alone. First those where a state that reaches the bound has a smaller t (the states
// show the disjunction needed), then the others (the states may not show it: a short converted from an unsigned
// short input is negative only from 2^15 on, which the sampling seldom draws). Of bounds reached at the same
// states only the first is used: `n >= 0`, `x >= 0` and `z >= 6` are all reached at cohencu's start, and their
// disjunctions would say the same. At most kMaxDisjunctions.
std::vector<BoundDisjunction> GuessDisjunctions(const std::vector<std::vector<mpz_class>>& states,
                                                const std::vector<size_t>& ints, const std::vector<AffineBound>& bounds,
                                                const std::set<std::pair<size_t, size_t>>& pairs, size_t arity) {
  // The value of coeffs · args in each state; none where a coefficient is on an argument that is no integer.
  const auto values = [&](const std::vector<mpz_class>& coeffs) -> std::optional<std::vector<mpz_class>> {
    mpz_class on_ints = 0;
    for (size_t k = 0; k < ints.size(); ++k) on_ints += abs(coeffs[ints[k]]);
    mpz_class on_all = 0;
    for (const mpz_class& c : coeffs) on_all += abs(c);
    if (on_ints != on_all) return std::nullopt;
    std::vector<mpz_class> out;
    for (const auto& state : states) {
      mpz_class v = 0;
      for (size_t k = 0; k < ints.size(); ++k) v += coeffs[ints[k]] * state[k];
      out.push_back(v);
    }
    return out;
  };
  std::vector<std::vector<mpz_class>> terms;
  const auto term = [&](size_t i, int ci, size_t j, int cj) {
    std::vector<mpz_class> t(arity, 0);
    t[i] += ci;
    t[j] += cj;
    terms.push_back(std::move(t));
  };
  for (size_t i : ints) {
    term(i, 1, i, 0);
    term(i, -1, i, 0);
  }
  for (const auto& [i, j] : pairs) {
    const bool both_ints = std::count(ints.begin(), ints.end(), i) > 0 && std::count(ints.begin(), ints.end(), j) > 0;
    if (!both_ints) continue;
    term(i, 1, j, 1);
    term(i, 1, j, -1);
    term(i, -1, j, 1);
    term(i, -1, j, -1);
  }
  std::vector<BoundDisjunction> shown, others;
  std::set<std::vector<bool>> reached_sets;
  for (const AffineBound& b : bounds) {
    const std::optional<std::vector<mpz_class>> lhs = values(b.coeffs);
    if (!lhs) continue;
    std::vector<bool> reached;
    for (const mpz_class& v : *lhs) reached.push_back(v == b.bound);
    if (std::count(reached.begin(), reached.end(), true) == 0 ||
        std::count(reached.begin(), reached.end(), false) == 0 || !reached_sets.insert(reached).second) {
      continue;
    }
    std::vector<mpz_class> opposite;
    for (const mpz_class& c : b.coeffs) opposite.push_back(-c);
    for (const std::vector<mpz_class>& t : terms) {
      if (t == b.coeffs || t == opposite) continue;
      const std::vector<mpz_class> tv = *values(t);
      std::optional<mpz_class> least;
      for (size_t k = 0; k < states.size(); ++k) {
        if (!reached[k] && (!least || tv[k] < *least)) least = tv[k];
      }
      std::vector<mpz_class> negated;
      for (const mpz_class& c : t) negated.push_back(-c);
      const AffineBound bound{std::move(negated), -*least};
      const auto says = [&](const AffineBound& known) {
        return known.coeffs == bound.coeffs && known.bound <= bound.bound;
      };
      if (std::any_of(bounds.begin(), bounds.end(), says)) continue;
      bool needed = false;
      for (size_t k = 0; k < states.size(); ++k) needed = needed || (reached[k] && tv[k] < *least);
      (needed ? shown : others).push_back(BoundDisjunction{b, bound});
    }
  }
  shown.insert(shown.end(), others.begin(), others.end());
  if (shown.size() > kMaxDisjunctions) shown.resize(kMaxDisjunctions);
  return shown;
}

// Drops each of known's disjunctions that its equalities, its bounds and the other disjunctions left imply
// (`c == 0 || c >= 1` where c >= 0; `c == 0 || c + k >= 2` with `c == 0 || c <= k`): each would be one more case
// split in every query about its predicate. A query that is inconclusive keeps its disjunction.
void DropImplied(const HornSystem& sys, z3::context& ctx, InferredInvariants& known) {
  z3::solver s = EliminatingSolver(ctx);
  z3::params limit(ctx);
  limit.set("rlimit", kCheckRlimit);
  s.set(limit);
  for (size_t p = 0; p < sys.preds.size(); ++p) {
    std::vector<BoundDisjunction>& ds = known.disjunctions[p];
    if (ds.empty()) continue;
    std::vector<z3::expr> args;
    for (unsigned i = 0; i < sys.preds[p].arity(); ++i) {
      args.push_back(ctx.constant(("disjunction_arg_" + std::to_string(i)).c_str(), sys.preds[p].domain(i)));
    }
    s.push();
    for (const AffineEquality& e : known.equalities[p]) s.add(e.At(ctx, args));
    for (const AffineBound& b : known.bounds[p]) s.add(b.At(ctx, args));
    for (size_t k = 0; k < ds.size();) {
      s.push();
      for (size_t j = 0; j < ds.size(); ++j) {
        if (j != k) s.add(ds[j].At(ctx, args));
      }
      s.add(!ds[k].At(ctx, args));
      const bool implied = s.check() == z3::unsat;
      s.pop();
      if (implied) {
        ds.erase(ds.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
    s.pop();
  }
}

// A guessed invariant of one predicate: its formula at a clause side's arguments.
using Candidate = std::function<z3::expr(const std::vector<z3::expr>& args)>;

// Houdini's fixpoint: drops every candidate that a clause, from states satisfying the known invariants (and their
// consequences) and the candidates left, leads out of, until none does. Returns the indices of the candidates
// left per predicate. Throws OutOfTime at the deadline.
std::vector<std::vector<size_t>> KeepInductive(const HornSystem& sys, z3::context& ctx,
                                               const InferredInvariants& known,
                                               const std::vector<std::vector<Candidate>>& candidates,
                                               const common::Stopwatch& clock, double deadline_s) {
  const size_t preds = sys.preds.size();
  std::vector<std::vector<size_t>> kept(preds);
  for (size_t p = 0; p < preds; ++p) {
    for (size_t f = 0; f < candidates[p].size(); ++f) kept[p].push_back(f);
  }
  z3::solver s = EliminatingSolver(ctx);
  const auto holds = [&](size_t p, const std::vector<z3::expr>& args) {
    z3::expr_vector conj(ctx);
    conj.push_back(known.Assumed(ctx, static_cast<int>(p), args));
    for (size_t f : kept[p]) conj.push_back(candidates[p][f](args));
    return z3::mk_and(conj);
  };
  const auto check = [&] {
    const double left_s = deadline_s - clock.Seconds();
    if (left_s <= 0) throw OutOfTime{};
    z3::params p(ctx);
    p.set("rlimit", kCheckRlimit);
    s.set(p);
    return s.check();
  };
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (const HornClause& c : sys.clauses) {
      if (c.head_pred < 0) continue;
      const auto q = static_cast<size_t>(c.head_pred);
      if (kept[q].empty()) continue;
      while (!kept[q].empty()) {
        // Made again after each drop: a loop's body assumes what its head keeps.
        const z3::expr body = c.constraint && AtomsHold(ctx, BodyAtoms(c), holds);
        z3::expr_vector heads(ctx);
        for (size_t f : kept[q]) heads.push_back(candidates[q][f](c.head_args));
        s.push();
        s.add(body && !z3::mk_and(heads));
        const z3::check_result r = check();
        std::vector<size_t> left;
        if (r == z3::sat) {
          const z3::model m = s.get_model();
          for (size_t k = 0; k < kept[q].size(); ++k) {
            if (m.eval(heads[static_cast<int>(k)], true).is_true()) left.push_back(kept[q][k]);
          }
          // A model that breaks none of them (its evaluation left symbolic) is no reason to keep any.
          if (left.size() == kept[q].size()) left.clear();
        }
        s.pop();
        if (r == z3::unsat) break;
        if (r == z3::unknown) {
          // One at a time: an inconclusive check drops only the candidate it was about.
          for (size_t k = 0; k < kept[q].size(); ++k) {
            s.push();
            s.add(body && !heads[static_cast<int>(k)]);
            if (check() == z3::unsat) left.push_back(kept[q][k]);
            s.pop();
          }
        }
        kept[q] = std::move(left);
        dropped = true;
      }
    }
  }
  return kept;
}

}  // namespace

bool MultipliesVariables(const z3::expr& e) {
  std::unordered_set<unsigned> visited;
  std::vector<z3::expr> pending = {e};
  while (!pending.empty()) {
    const z3::expr t = pending.back();
    pending.pop_back();
    if (!t.is_app() || !visited.insert(t.id()).second) continue;
    if (t.decl().decl_kind() == Z3_OP_MUL) {
      unsigned symbolic = 0;
      for (unsigned i = 0; i < t.num_args(); ++i) symbolic += !t.arg(i).is_numeral();
      if (symbolic >= 2) return true;
    }
    for (unsigned i = 0; i < t.num_args(); ++i) pending.push_back(t.arg(i));
  }
  return false;
}

bool MultipliesVariables(const HornSystem& sys) {
  return std::any_of(sys.clauses.begin(), sys.clauses.end(),
                     [](const HornClause& c) { return MultipliesVariables(c.constraint); });
}

void InferPolynomialInvariants(const HornSystem& sys, z3::context& ctx, double time_limit_s,
                               InferredInvariants& known) {
  const common::Stopwatch clock;
  const size_t preds = sys.preds.size();
  std::vector<std::vector<size_t>> ints(preds);
  std::vector<size_t> wanted(preds);
  for (size_t p = 0; p < preds; ++p) {
    for (unsigned i = 0; i < sys.preds[p].arity(); ++i) {
      if (sys.preds[p].domain(i).is_int()) ints[p].push_back(i);
    }
    size_t degree = kMaxPolynomialDegree;
    while (degree > 0 && MonomialCount(ints[p].size(), degree) > kMaxMonomials) --degree;
    wanted[p] = MonomialCount(ints[p].size(), degree) + kExtraStates;
  }
  try {
    Sampler sampler(sys, ctx, ints, clock, kSamplingShare * time_limit_s);
    sampler.Run(wanted);
    // First the equalities, then the disjunctions with the equalities kept assumed: checked together, the
    // disjunctions' case splits made nonlinear queries run out of their resource limit (geo2's
    // `1 + x*z - x - z*y == 0`, inductive alone, was dropped).
    std::vector<Guesses> guesses;
    std::vector<std::vector<Candidate>> candidates(preds);
    for (size_t p = 0; p < preds; ++p) {
      const bool sampled = known.reachable[p] && sampler.States(p).size() >= 2;
      const std::vector<std::vector<mpz_class>> none;
      guesses.emplace_back(sampled ? sampler.States(p) : none, ints[p]);
      for (size_t f : guesses[p].Generators()) {
        candidates[p].push_back([&ctx, e = guesses[p].Equality(f)](const std::vector<z3::expr>& args) {
          return e.At(ctx, args);
        });
      }
    }
    const auto no_candidates = [](const std::vector<std::vector<Candidate>>& c) {
      return std::all_of(c.begin(), c.end(), [](const auto& of_pred) { return of_pred.empty(); });
    };
    if (!no_candidates(candidates)) {
      const std::vector<std::vector<size_t>> kept = KeepInductive(sys, ctx, known, candidates, clock, time_limit_s);
      for (size_t p = 0; p < preds; ++p) {
        std::vector<size_t> equalities;
        for (size_t k : kept[p]) equalities.push_back(guesses[p].Generators()[k]);
        for (size_t f : equalities) known.polynomials[p].push_back(guesses[p].Equality(f));
        known.consequences[p] = guesses[p].ImpliedBy(equalities);
      }
    }
    std::vector<std::vector<BoundDisjunction>> disjunctions(preds);
    candidates.assign(preds, {});
    for (size_t p = 0; p < preds; ++p) {
      if (!known.reachable[p] || sampler.States(p).size() < 2) continue;
      disjunctions[p] =
          GuessDisjunctions(sampler.States(p), ints[p], known.bounds[p], ComparedPairs(sys, p), sys.preds[p].arity());
      for (const BoundDisjunction& d : disjunctions[p]) {
        candidates[p].push_back([&ctx, d](const std::vector<z3::expr>& args) { return d.At(ctx, args); });
      }
    }
    if (no_candidates(candidates)) return;
    const std::vector<std::vector<size_t>> kept = KeepInductive(sys, ctx, known, candidates, clock, time_limit_s);
    for (size_t p = 0; p < preds; ++p) {
      for (size_t k : kept[p]) known.disjunctions[p].push_back(disjunctions[p][k]);
    }
    DropImplied(sys, ctx, known);
  } catch (const OutOfTime&) {
    return;
  } catch (const z3::exception&) {
    return;
  }
}

}  // namespace fusion
