#include "fusion/counterexample.h"

#include <fmt/core.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace fusion {
namespace {

// The real value of a parameter of a symbolic encoding, from its constant's name ("UINT_MAX!3",
// "#100000!7"); nothing for any other constant.
std::optional<Int128> ParameterValue(std::string_view name) {
  const std::string_view base = name.substr(0, name.find('!'));
  if (base == kSymbolicUintMax) return (Int128{1} << 32) - 1;
  if (!base.empty() && base[0] == '#') return ParseDecimal(base.substr(1));
  return std::nullopt;
}

// The value of a numeral; nothing for any other term.
std::optional<Int128> Numeral(const z3::expr& e) {
  if (!e.is_numeral()) return std::nullopt;
  return ParseDecimal(Z3_get_numeral_string(e.ctx(), e));
}

// The program's name of an array constant ("a!12": a).
std::string ArrayName(const z3::expr& a) {
  const std::string name = a.decl().name().str();
  return name.substr(0, name.find('!'));
}

// The contents of an array as a model gives it: a constant array with stores on it, or a finite function
// (as-array); nothing for any other term.
std::optional<ArrayValue> ArrayIn(const z3::model& m, const z3::expr& e) {
  if (!e.is_app()) return std::nullopt;
  const Z3_decl_kind kind = e.decl().decl_kind();
  if (kind == Z3_OP_CONST_ARRAY) {
    const std::optional<Int128> otherwise = Numeral(e.arg(0));
    if (!otherwise) return std::nullopt;
    return ArrayValue{*otherwise, {}};
  }
  if (kind == Z3_OP_STORE) {
    std::optional<ArrayValue> base = ArrayIn(m, e.arg(0));
    const std::optional<Int128> index = Numeral(e.arg(1)), value = Numeral(e.arg(2));
    if (!base || !index || !value) return std::nullopt;
    base->cells[static_cast<long long>(*index)] = *value;
    return base;
  }
  if (kind == Z3_OP_AS_ARRAY) {
    const z3::func_decl f(e.ctx(), Z3_get_as_array_func_decl(e.ctx(), e));
    const z3::func_interp fi = m.get_func_interp(f);
    const std::optional<Int128> otherwise = Numeral(fi.else_value());
    if (!otherwise) return std::nullopt;
    ArrayValue out{*otherwise, {}};
    for (unsigned k = 0; k < fi.num_entries(); ++k) {
      const std::optional<Int128> index = Numeral(fi.entry(k).arg(0)), value = Numeral(fi.entry(k).value());
      if (!index || !value) return std::nullopt;
      out.cells.emplace(static_cast<long long>(*index), *value);
    }
    return out;
  }
  return std::nullopt;
}

// The clause indices of the trace, from the entry to the error: Z3 names the rules from the query back
// ("<null>;c2;c1;c0"), and the rules were named "c<index>".
std::vector<size_t> TraceClauses(std::string_view names, size_t clauses) {
  std::vector<size_t> out;
  size_t start = 0;
  while (start <= names.size()) {
    size_t end = names.find(';', start);
    if (end == std::string_view::npos) end = names.size();
    const std::string_view name = names.substr(start, end - start);
    if (name.size() > 1 && name[0] == 'c') {
      const std::optional<Int128> k = ParseDecimal(name.substr(1));
      if (k && *k >= 0 && static_cast<size_t>(*k) < clauses) out.push_back(static_cast<size_t>(*k));
    }
    start = end + 1;
  }
  return {out.rbegin(), out.rend()};
}

}  // namespace

CounterexampleSearch CounterexampleInputs(const HornSystem& sys, z3::context& ctx,
                                          const std::vector<std::pair<std::string, bool>>& params, size_t max_steps) {
  const auto none = [](std::string why) { return CounterexampleSearch{std::nullopt, std::move(why)}; };
  z3::fixedpoint fp(ctx);
  z3::params p(ctx);
  p.set("engine", "spacer");
  for (const auto& [name, value] : params) {
    const std::string local = name.rfind("fp.", 0) == 0 ? name.substr(3) : name;
    p.set(local.c_str(), value);
  }
  fp.set(p);
  for (z3::func_decl pred : sys.preds) fp.register_relation(pred);
  // The fixedpoint interface asks whether a relation is derivable: the error clauses derive this one.
  z3::func_decl error = ctx.function("loopfuse!error", 0, nullptr, ctx.bool_sort());
  fp.register_relation(error);
  const auto apply = [&](int pred, const std::vector<z3::expr>& args) {
    z3::expr_vector a(ctx);
    for (const z3::expr& x : args) a.push_back(x);
    return sys.preds[pred](a);
  };
  for (size_t k = 0; k < sys.clauses.size(); ++k) {
    const HornClause& c = sys.clauses[k];
    const z3::expr body = c.body_pred >= 0 ? apply(c.body_pred, c.body_args) && c.constraint : c.constraint;
    const z3::expr head = c.head_pred >= 0 ? apply(c.head_pred, c.head_args) : error();
    z3::expr rule = z3::implies(body, head);
    if (!c.vars.empty()) {
      z3::expr_vector vs(ctx);
      for (const z3::expr& v : c.vars) vs.push_back(v);
      rule = z3::forall(vs, rule);
    }
    fp.add_rule(rule, ctx.str_symbol(fmt::format("c{}", k).c_str()));
  }
  z3::expr query = error();
  if (fp.query(query) != z3::sat) return none("Spacer, asked again, found no error");
  std::vector<size_t> trace =
      TraceClauses(Z3_get_symbol_string(ctx, Z3_fixedpoint_get_rule_names_along_trace(ctx, fp)), sys.clauses.size());
  // Where the error follows from the entry in one step (no loop head before it), Spacer may name no rule
  // ("<null>"): that step is an error clause from the entry whose constraint holds.
  for (size_t k = 0; trace.empty() && k < sys.clauses.size(); ++k) {
    const HornClause& c = sys.clauses[k];
    if (c.body_pred >= 0 || c.head_pred >= 0) continue;
    z3::solver one_step(ctx);
    one_step.add(c.constraint);
    if (one_step.check() == z3::sat) trace.push_back(k);
  }
  if (trace.empty()) return none("Spacer named no clause along its derivation");
  if (trace.size() > max_steps) {
    return none(fmt::format("its derivation has {} steps, more than the {} unrolled", trace.size(), max_steps));
  }

  // The trace as one query: a copy of each clause's constants per step, each step's body arguments equal
  // to the previous step's head arguments.
  // Z3 4.8.12's default arithmetic solver can search for seconds on a query whose remainders wrap a narrow value
  // (`(unsigned)(short)x * 15u % 65536u == 12648u`: still unknown after 10 s), which the older solver
  // (arith.solver=2) answers in milliseconds; on 134 generated programs with a reachable error it gave as many
  // values (127 against 126) in the same time.
  z3::solver s(ctx);
  z3::params arith(ctx);
  arith.set("arith.solver", 2u);
  s.set(arith);
  // Each input and array with where it is read or made (true outside merged blocks).
  std::vector<std::pair<z3::expr, z3::expr>> inputs;
  std::vector<InputSite> sites;
  std::vector<std::tuple<std::string, z3::expr, z3::expr>> arrays;
  const z3::expr always = ctx.bool_val(true);
  std::vector<z3::expr> head;
  std::vector<z3::expr> real_values;  // the parameters at their real values
  int head_pred = -1;
  for (size_t step = 0; step < trace.size(); ++step) {
    const HornClause& c = sys.clauses[trace[step]];
    if (c.body_pred != head_pred || (step + 1 == trace.size()) != (c.head_pred < 0)) {
      return none("the clauses Spacer named do not chain from the entry to the error");
    }
    z3::expr_vector from(ctx), to(ctx);
    for (const z3::expr& v : c.vars) {
      from.push_back(v);
      to.push_back(ctx.constant(fmt::format("{}@{}", v.decl().name().str(), step).c_str(), v.get_sort()));
      if (step == 0) {
        if (const std::optional<Int128> real = ParameterValue(v.decl().name().str())) {
          real_values.push_back(to.back() == ctx.int_val(static_cast<int64_t>(*real)));
        }
      }
    }
    const auto copy = [&](const z3::expr& e) { return z3::expr(e).substitute(from, to); };
    s.add(copy(c.constraint));
    for (size_t i = 0; i < c.body_args.size(); ++i) s.add(copy(c.body_args[i]) == head[i]);
    head.clear();
    for (const z3::expr& a : c.head_args) head.push_back(copy(a));
    head_pred = c.head_pred;
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      inputs.emplace_back(copy(c.inputs[k]), c.input_guards.empty() ? always : copy(c.input_guards[k]));
    }
    sites.insert(sites.end(), c.input_sites.begin(), c.input_sites.end());
    for (size_t k = 0; k < c.input_arrays.size(); ++k) {
      const z3::expr& a = c.input_arrays[k];
      arrays.emplace_back(ArrayName(a), copy(a), c.array_guards.empty() ? always : copy(c.array_guards[k]));
    }
  }
  s.push();
  for (const z3::expr& pin : real_values) s.add(pin);
  if (const z3::check_result r = s.check(); r != z3::sat) {
    if (r == z3::unknown) return none("its derivation, unrolled, is undecided (" + s.reason_unknown() + ")");
    s.pop();
    // A symbolic encoding lets UINT_MAX and the large constants be any value above a threshold: a derivation
    // may hold for other values only (a loop to 0x0fffffff left after one iteration).
    return none(!real_values.empty() && s.check() == z3::sat
                    ? "its derivation holds for other values of the symbolic constants (UINT_MAX, large constants) "
                      "only, not for their real ones"
                    : "its derivation, unrolled, is unsatisfiable");
  }
  const z3::model m = s.get_model();
  CounterexampleValues out;
  const auto taken = [&](const z3::expr& guard) { return m.eval(guard, true).is_true(); };
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!taken(inputs[k].second)) continue;
    const std::optional<Int128> value = Numeral(m.eval(inputs[k].first, true));
    if (!value) return none("an input's value in the model is not a number");
    out.inputs.push_back(*value);
    out.sites.push_back(sites[k]);
  }
  for (const auto& [name, a, guard] : arrays) {
    if (out.arrays.count(name) || !taken(guard)) continue;
    if (const std::optional<ArrayValue> value = ArrayIn(m, m.eval(a, true))) out.arrays.emplace(name, *value);
  }
  return {std::move(out), ""};
}

void CellScalarsToArrays(const Program& prog, CounterexampleValues& values) {
  for (size_t k = 0; k < values.inputs.size(); ++k) {
    const InputSite& site = values.sites.at(k);
    const auto it = site.loc == Loc{} ? prog.cell_scalars.find(site.name) : prog.cell_scalars.end();
    if (it == prog.cell_scalars.end()) continue;
    const auto& [array, index] = it->second;
    values.arrays[array].cells.try_emplace(static_cast<long long>(index), values.inputs[k]);
  }
}

RunResult ReplayCounterexample(const Program& prog, const CounterexampleValues& values, long max_steps,
                               double max_seconds, const std::atomic<bool>* cancel) {
  std::map<InputSite, std::vector<Int128>> by_site;
  for (size_t k = 0; k < values.inputs.size(); ++k) by_site[values.sites.at(k)].push_back(values.inputs[k]);
  std::map<InputSite, size_t> next;
  const auto input = [&](IntType, const InputSite& site) {
    const auto it = by_site.find(site);
    size_t& n = next[site];
    return it != by_site.end() && n < it->second.size() ? it->second[n++] : Int128{0};
  };
  const auto cells = [&](const std::string& array, long long index) -> std::optional<Int128> {
    const auto a = values.arrays.find(array);
    if (a == values.arrays.end()) return std::nullopt;
    const auto cell = a->second.cells.find(index);
    return cell == a->second.cells.end() ? a->second.otherwise : cell->second;
  };
  return Interpret(prog, input, max_steps, max_seconds, cancel, 0, cells);
}

}  // namespace fusion
